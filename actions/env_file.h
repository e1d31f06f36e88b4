// The env_file action kind: environment settings (TASK_QUEUE_ENABLE, PYTORCH_NPU_ALLOC_CONF,
// CUDA_DEVICE_MAX_CONNECTIONS, HCCL/NCCL buffer sizes, ...) as a file the user sources before
// the next run, each line commented with the finding that proposed it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace perfsage::actions {

struct EnvRequest {
  std::vector<std::string> set;    // NAME=VALUE
  std::vector<std::string> unset;  // NAME
  std::string finding, title;
};

struct EnvLine {
  std::string name;
  std::optional<std::string> value;  // nullopt: unset
  std::string finding, title;
};

struct EnvPlan {
  std::vector<EnvLine> lines;
  std::vector<std::string> notes;     // conflicts and rejected entries
  std::vector<std::string> findings;  // findings with at least one line in the file
};

// Merges the requests into one file: a variable two findings set differently keeps the first
// value (noted); entries that are not NAME=VALUE with a shell variable name are rejected (noted).
EnvPlan plan_env_file(const std::vector<EnvRequest>& requests);
// A POSIX-shell file: `export NAME='value'  # finding <id>: <title>` / `unset NAME  # ...`.
std::string render_env_file(const EnvPlan& plan);

class ActionKind;
// The env_file action kind (actions/kind.h): one sourceable environment file per run.
const ActionKind& env_file_kind();

}  // namespace perfsage::actions
