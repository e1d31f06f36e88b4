// The `perfsage kb` subcommands beyond list/test/facts, each parsing its options and rendering
// what app/ returns.
#pragma once

#include "cli/commands.h"
#include "perfsage/v1/kb.pb.h"

namespace perfsage::cli {

int kb_validate(const Args& args, std::ostream& out, std::ostream& err);
int kb_lint(const Args& args, std::ostream& out, std::ostream& err);
int kb_describe(const Args& args, std::ostream& out, std::ostream& err);
int kb_new(const Args& args, std::ostream& out, std::ostream& err);
int kb_install(const Args& args, std::ostream& out, std::ostream& err);
int kb_remove(const Args& args, std::ostream& out, std::ostream& err);
int kb_paths(const Args& args, std::ostream& out, std::ostream& err);

// Every fact type as a message (kb facts --format json).
perfsage::v1::FactTypeList fact_types_message();

}  // namespace perfsage::cli
