// The few names from below app/ that the front ends (cli/, daemon/) use as they are: how an
// input is read, severities, the number formats a report's text uses, counts with their nouns, the
// fact-type listing, writing a file atomically (or, when the user named a device or FIFO, through
// it), what the process maps and what it need not free before exiting. Re-exported here so cli/
// and daemon/ include app/ headers only (app/layer_check.cmake); each stays defined where it is.
#pragma once

#include "actions/files.h"
#include "collectors/common/collector.h"
#include "engine/clips/environment.h"
#include "engine/facts/registry.h"
#include "engine/finding.h"
#include "engine/kb/load_result.h"
#include "engine/kb/message_text.h"
#include "engine/pack_child.h"
#include "store/count_text.h"

namespace perfsage::app {

using InputMode = collectors::Mode;  // strict | lenient
using LoadMessage = engine::LoadMessage;

using engine::parse_severity;
using engine::severity_name;

using engine::format_bytes;
using engine::format_evidence;
using engine::format_pct;
using engine::format_us;
using store::count_text;  // "1 finding", "3 findings"

using engine::facts::clips_type_name;

using actions::write_file_atomic;
using actions::write_user_file;

using engine::mapped_bytes;  // what the process maps: the base of a worker's RLIMIT_AS
// A worker exits after its job: the packs' environments need not be freed first.
using engine::clips::leave_environments_to_exit;

}  // namespace perfsage::app
