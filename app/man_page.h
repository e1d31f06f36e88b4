// Manual pages (man(7) roff) for both front ends, built from the text `--help` prints, that
// is from the same boost::program_options descriptions the commands parse with, so a page
// never lists an option the command lacks or misses one it has.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfsage::app {

// One option as --help prints it: "-o [ --output ] arg   write the report to ...".
struct HelpOption {
  std::vector<std::string> names;  // "-o", "--output"
  std::string argument;            // "arg", "arg (=1)", or empty for a switch
  std::string text;                // the description, its lines joined
};

// A printed options_description: the caption's first line (the synopsis), its other
// paragraphs, and the options.
struct HelpText {
  std::string synopsis;
  std::vector<std::string> paragraphs;
  std::vector<HelpOption> options;
};

HelpText parse_help(std::string_view printed);

// Text for roff: backslashes, hyphens (as \-, so options can be searched and copied) and a
// leading '.' or '\'' escaped.
std::string roff_escape(std::string_view text);
// ".TP" entries, one per option.
std::string roff_options(const std::vector<HelpOption>& options);
// ".TP" entries of a term in bold and its text: exit codes, variables, files, config keys.
std::string roff_entries(const std::vector<std::pair<std::string, std::string>>& entries);
// The paragraphs as roff ".PP" paragraphs.
std::string roff_paragraphs(const std::vector<std::string>& paragraphs);

struct ManSection {
  std::string title;  // "OPTIONS", "EXIT STATUS"
  std::string roff;   // its body, already roff
};

struct ManPage {
  std::string name;                   // perfsage-analyze
  int section = 1;                    // 1 commands, 8 daemons
  std::string version;                // "perfsage 0.1.0" in the footer
  std::string summary;                // the NAME line after "\-"
  std::vector<std::string> synopsis;  // one line per form
  std::vector<ManSection> sections;   // after NAME and SYNOPSIS
};

// The whole page; no date, so the same sources give the same bytes.
std::string render_man_page(const ManPage& page);

}  // namespace perfsage::app
