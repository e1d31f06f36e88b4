// One identity for a run's inputs, shared by every path a run takes into perfsage: the CLI's
// analyze and ingest, the daemon's watcher and restart recovery, and the API's submit. The same
// inputs reached by any of them give the same normal paths, job name and fingerprint, so a job's
// history and "judged on the job's next run" never split between front ends.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace perfsage::app {

// An input as a run records it: absolute, lexically normal, without a trailing separator, so
// `dir/`, `dir`, `dir/./` and `dir//` are one input.
std::filesystem::path normal_input(const std::filesystem::path& input);
std::vector<std::filesystem::path> normal_inputs(const std::vector<std::filesystem::path>& inputs);

// A job name from a run's file or folder name: the name without the extensions profilers and
// exporters add, stripped from the end in this order: .gz, .json, .csv, .txt, .onnx, .pt.trace
// ("rank0.pt.trace.json.gz" -> "rank0").
std::string job_from_name(std::string name);

// The job of a run given no job: job_from_name of the first normal input's name; "" without
// inputs.
std::string default_job(const std::vector<std::filesystem::path>& normal_inputs);

// The fingerprint stored runs are found by: path, size and modification time of every file the
// normal inputs expand to. Throws when an input does not exist.
std::string input_fingerprint(const std::vector<std::filesystem::path>& inputs);

}  // namespace perfsage::app
