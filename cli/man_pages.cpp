// perfsage(1) and perfsage-COMMAND(1), written by `perfsage --man [COMMAND]` when perfsage is
// built: each command's page holds its --help (and its subcommands') as the command parses it,
// with the exit codes, environment and files that apply to that command.
#include <sstream>

#include "app/man_page.h"
#include "cli/commands.h"
#include "cli/dispatch.h"

namespace perfsage::cli {
namespace {

struct ExitCode {
  int code;
  const char* meaning;
};

// What a command's page says beyond its options.
struct PageFacts {
  const char* command;
  std::vector<ExitCode> exits;
  bool reads_packs = false;      // PERFSAGE_KB_PATH and the pack folders apply
  bool talks_to_daemon = false;  // PERFSAGE_URL and PERFSAGE_TOKEN apply
};

constexpr ExitCode kOk{kExitOk, "done, whatever was found"};
constexpr ExitCode kUsageCode{kExitUsage, "bad usage: an option, the config, the pack selection"};
constexpr ExitCode kStoreCode{kExitStore, "the store cannot be opened, read or written"};
constexpr ExitCode kInternal{kExitInternal, "an internal error (a defect in perfsage)"};
constexpr ExitCode kOutput{kExitInput, "a file named cannot be read, or the output not written"};
constexpr ExitCode kFailOnCode{kExitFailOn, "--fail-on: a finding at or above the severity"};
constexpr ExitCode kGateCode{kExitGate,
                             "--fail-on: a selected pack failed, did not read or ran out of "
                             "budget, or (with --lenient) no input was recognised"};
constexpr ExitCode kDaemonFailed{
    kExitInput, "perfsaged cannot be reached, failed (5xx), has no such run, or answered badly"};
constexpr ExitCode kDaemonRefused{kExitUsage,
                                  "bad usage, or perfsaged refused the request (400, 401, 403)"};

const std::vector<PageFacts>& page_facts() {
  static const std::vector<PageFacts> facts = {
      {"analyze",
       {kOk,
        {kExitInput,
         "an input cannot be read, or no input was recognised (unless --lenient); the report "
         "is still printed and stderr says nothing recognised"},
        kUsageCode,
        kFailOnCode,
        kGateCode,
        kStoreCode,
        kInternal},
       true},
      {"ingest",
       {kOk,
        {kExitInput, "an input cannot be read, or no input was recognised (unless --lenient)"},
        kUsageCode,
        kStoreCode,
        kInternal},
       true},
      {"query",
       {kOk,
        {kExitInput,
         "the store cannot be read, the statement is not valid SQL, or it would write "
         "(read-only queries only)"},
        {kExitUsage, "bad usage"}}},
      {"kb",
       {kOk,
        kOutput,
        kUsageCode,
        {kExitPack, "a pack cannot be loaded, validated, tested, linted (--strict) or installed"},
        kInternal},
       true},
      {"actions",
       {kOk,
        {kExitInput, "a run, plan or apply named does not exist, or an input cannot be read"},
        kUsageCode,
        kStoreCode,
        {kExitPack, "a pack needed to analyse PATH cannot be loaded"},
        kInternal},
       true},
      {"compare",
       {kOk,
        {kExitInput, "a run named does not exist, or an input cannot be read"},
        kUsageCode,
        kStoreCode,
        {kExitPack, "a pack needed to analyse an input path cannot be loaded"},
        kInternal},
       true},
      {"daemon", {kOk, kDaemonFailed, kDaemonRefused}, false, true},
      {"runs", {kOk, kDaemonFailed, kDaemonRefused}, false, true},
      {"show", {kOk, kDaemonFailed, kDaemonRefused}, false, true},
      {"submit",
       {kOk,
        {kExitInput,
         "perfsaged cannot be reached or failed; with --wait: the job failed, was quarantined "
         "or did not end within --timeout"},
        kDaemonRefused},
       false,
       true},
  };
  return facts;
}

std::string help_of(const Command& command, const Args& args) {
  std::ostringstream out, err;
  command.run(args, out, err);
  return out.str();
}

// "analyze PATH...   collect ... findings" -> "collect ... findings".
std::string summary_of(const Command& c) {
  std::string s = c.synopsis;
  size_t gap = s.find("  ");
  return gap == std::string::npos ? s : s.substr(s.find_first_not_of(' ', gap));
}

std::vector<std::string> subcommands_of(const std::string& command) {
  if (command == "kb") return kb_subcommands();
  if (command == "actions") return actions_subcommands();
  if (command == "daemon") return daemon_subcommands();
  return {};
}

std::string exit_status_roff(const std::vector<ExitCode>& codes) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& c : codes) entries.push_back({std::to_string(c.code), c.meaning});
  return app::roff_entries(entries);
}

std::vector<std::pair<std::string, std::string>> environment_of(const PageFacts& f) {
  std::vector<std::pair<std::string, std::string>> env;
  if (f.reads_packs) {
    env.push_back({"PERFSAGE_KB_PATH",
                   "a knowledge_bases folder (builtin/, community/, hardware/, patterns/) used "
                   "instead of the one installed beside the binary"});
    env.push_back({"XDG_DATA_HOME, HOME",
                   "the user pack folder is $XDG_DATA_HOME/perfsage/packs, by default "
                   "~/.local/share/perfsage/packs"});
  }
  if (f.talks_to_daemon) {
    env.push_back({"PERFSAGE_URL",
                   "perfsaged's address when --url is not given (before the config's "
                   "daemon.listen and http://127.0.0.1:7737)"});
    env.push_back({"PERFSAGE_TOKEN",
                   "the bearer token when neither --token nor --token-file "
                   "is given"});
  }
  return env;
}

std::vector<std::pair<std::string, std::string>> files_of(const PageFacts& f) {
  std::vector<std::pair<std::string, std::string>> files;
  if (f.reads_packs) {
    files.push_back({"--config FILE",
                     "YAML config: kb: (pack paths, selection, params) and limits: (budgets, "
                     "isolation, input size); see the kb-authoring guide"});
    files.push_back({"PREFIX/share/perfsage/knowledge_bases/",
                     "the built-in and community packs, hardware specs and fusion patterns, "
                     "found beside the installed binary (perfsage kb paths shows which)"});
    files.push_back({"/etc/perfsage/packs/", "system packs, searched after the community ones"});
    files.push_back({"~/.local/share/perfsage/packs/", "user packs: where kb install puts them"});
  }
  if (f.talks_to_daemon) {
    files.push_back({"--config FILE",
                     "a perfsaged config: its daemon.listen and daemon.token or token_file are "
                     "used to reach the daemon"});
  }
  files.push_back({"PREFIX/share/doc/perfsage/",
                   "README.md and docs/: the guides (actions, compare, daemon, kb-authoring, "
                   "formats, facts)"});
  return files;
}

std::string see_also(const std::string& self) {
  std::string out;
  auto add = [&](const std::string& page) {
    if (page != self) out += std::string(out.empty() ? "" : ",\n") + ".BR " + page;
  };
  add("perfsage (1)");
  for (const auto& c : commands()) add(std::string("perfsage-") + c.name + " (1)");
  add("perfsaged (8)");
  return out + "\n";
}

// One command (with its subcommands as subsections).
app::ManPage command_page(const Command& c, const PageFacts& facts, const std::string& version) {
  const std::string name = std::string("perfsage-") + c.name;
  app::ManPage page;
  page.name = name;
  page.version = "perfsage " + version;
  page.summary = summary_of(c);
  auto subs = subcommands_of(c.name);
  if (subs.empty()) {
    auto help = app::parse_help(help_of(c, {"--help"}));
    // --help's one paragraph of exit codes is EXIT STATUS here, one code a line.
    std::erase_if(help.paragraphs,
                  [](const std::string& p) { return p.starts_with("Exit codes:"); });
    page.synopsis = {help.synopsis};
    page.sections.push_back({"DESCRIPTION", app::roff_paragraphs(help.paragraphs)});
    page.sections.push_back({"OPTIONS", app::roff_options(help.options)});
  } else {
    std::string body;
    for (const auto& sub : subs) {
      auto help = app::parse_help(help_of(c, {sub, "--help"}));
      page.synopsis.push_back(help.synopsis);
      body += ".SS " + sub + "\n.B " + app::roff_escape(help.synopsis) + "\n.PP\n" +
              app::roff_paragraphs(help.paragraphs) + app::roff_options(help.options);
    }
    page.sections.push_back({"DESCRIPTION", app::roff_escape(page.summary) + "\n"});
    page.sections.push_back({"SUBCOMMANDS", body});
  }
  page.sections.push_back({"EXIT STATUS", exit_status_roff(facts.exits)});
  if (auto env = environment_of(facts); !env.empty())
    page.sections.push_back({"ENVIRONMENT", app::roff_entries(env)});
  page.sections.push_back({"FILES", app::roff_entries(files_of(facts))});
  page.sections.push_back({"SEE ALSO", see_also(name + " (1)")});
  return page;
}

// perfsage(1): the commands, every exit code, environment and file.
app::ManPage overview_page(const std::string& version) {
  app::ManPage page;
  page.name = "perfsage";
  page.version = "perfsage " + version;
  page.summary = "performance advisor for AI training and inference";
  page.synopsis = {"perfsage COMMAND [options]", "perfsage help COMMAND", "perfsage --version"};
  page.sections.push_back(
      {"DESCRIPTION",
       app::roff_escape(
           "perfsage reads what a profiler wrote (Ascend msprof and PyTorch-on-Ascend output, "
           "PyTorch Kineto traces, GE graph dumps, ONNX models) into a SQLite fact store, "
           "derives statistics, evaluates rule packs written in YAML and prints ranked "
           "recommendations, each with its evidence, an estimated gain and a fix. Each command "
           "has its own page; perfsage help COMMAND prints its options.") +
           "\n"});
  std::string list;
  for (const auto& c : commands()) {
    list += ".TP\n.BR perfsage\\-" + app::roff_escape(c.name) + " (1)\n" +
            app::roff_escape(summary_of(c)) + "\n";
  }
  page.sections.push_back({"COMMANDS", list});
  PageFacts all{"",
                {kOk,
                 {kExitInput,
                  "an input or a file named cannot be read, none was recognised (unless "
                  "--lenient), or perfsaged cannot be reached"},
                 kUsageCode,
                 kFailOnCode,
                 kGateCode,
                 kStoreCode,
                 {kExitPack, "a pack cannot be loaded, tested or installed"},
                 kInternal},
                true,
                true};
  page.sections.push_back({"EXIT STATUS", exit_status_roff(all.exits) +
                                              ".PP\nEach command's page says which apply.\n"});
  page.sections.push_back({"ENVIRONMENT", app::roff_entries(environment_of(all))});
  page.sections.push_back({"FILES", app::roff_entries(files_of(all))});
  page.sections.push_back({"SEE ALSO", see_also("perfsage (1)")});
  return page;
}

}  // namespace

int write_man_page(const std::string& command, std::ostream& out, std::ostream& err,
                   const std::string& version) {
  if (command.empty()) {
    out << app::render_man_page(overview_page(version));
    return kExitOk;
  }
  for (const auto& c : commands()) {
    if (command != c.name) continue;
    for (const auto& f : page_facts()) {
      if (command == f.command) {
        out << app::render_man_page(command_page(c, f, version));
        return kExitOk;
      }
    }
    err << "perfsage --man: no page facts for '" << command << "'\n";
    return kExitInternal;
  }
  err << "perfsage --man: unknown command '" << command << "'\n";
  return kExitUsage;
}

}  // namespace perfsage::cli
