// Stored tuning actions (actions/, docs/actions.md): planned actions, applies with the files
// they wrote, the audit trail, and verdicts on the next run of the job. The audit and the
// applies are written with synchronous=FULL (a power loss cannot lose an acknowledged apply);
// nothing here is deleted when a run is, so the trail outlives the runs it names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"

namespace perfsage::store {

struct ActionPlanRow {
  int64_t id = 0;
  int64_t run_id = 0;
  std::string job;
  std::string kind;                   // fusion_switch | aoe | onnx_rewrite | env_file | code_hint
  std::string key;                    // identity within the run: the same plan is not stored twice
  std::vector<std::string> findings;  // finding ids it carries out
  std::string spec;                   // the planned action (JSON written by actions/)
  std::string summary;                // what it would write, in words
  std::string created;
};

struct ActionFileRow {
  std::string path;    // absolute
  std::string sha256;  // of the content written
  int64_t bytes = 0;
  std::string role;  // what the file is (fusion_switch_json, model, env, ...)
};

struct ActionApplyRow {
  int64_t id = 0;
  int64_t plan_id = 0;
  std::string out_dir;
  bool allow_inexact = false;
  std::string applied, actor;
  std::optional<std::string> rolled_back;
  std::string inputs;  // JSON [{"path":..., "sha256":...}] of the inputs read
  std::vector<ActionFileRow> files;
};

struct ActionAuditRow {
  int64_t id = 0;
  std::string at, actor, event;  // plan | apply | apply_noop | rollback | rollback_refused | verify
  std::optional<int64_t> plan_id, apply_id;
  std::vector<std::string> findings;
  std::string detail;
};

struct ActionVerdictRow {
  int64_t apply_id = 0;
  std::string finding;
  int64_t before_run = 0, after_run = 0;
  std::string metric, unit;
  std::optional<double> before, after, noise;
  std::string verdict;  // helped | no_effect | regressed | unknown | finding_gone |
                        // not_measurable | not_applied
  bool finding_present = false;
  std::string detail, judged;
};

// Stores a plan unless one with the same (run, key) exists; returns the stored plan's id and
// whether it was new.
std::pair<int64_t, bool> save_action_plan(Database& db, ActionPlanRow plan);
std::optional<ActionPlanRow> load_action_plan(Database& db, int64_t id);
std::vector<ActionPlanRow> load_action_plans(Database& db, std::optional<int64_t> run_id = {});

// An apply with its files and its audit row, in one transaction at synchronous=FULL.
int64_t save_action_apply(Database& db, ActionApplyRow apply, const ActionAuditRow& audit);
std::optional<ActionApplyRow> load_action_apply(Database& db, int64_t id);
// Applies of a plan, oldest first.
std::vector<ActionApplyRow> load_action_applies(Database& db, std::optional<int64_t> plan_id = {});
// Marks an apply rolled back and records the audit row (one transaction, synchronous=FULL).
void mark_action_rolled_back(Database& db, int64_t apply_id, const std::string& at,
                             const ActionAuditRow& audit);

void append_action_audit(Database& db, const ActionAuditRow& row);
std::vector<ActionAuditRow> load_action_audit(Database& db);

// Replaces the verdict of (apply, finding).
void save_action_verdict(Database& db, const ActionVerdictRow& row);
std::vector<ActionVerdictRow> load_action_verdicts(Database& db,
                                                   std::optional<int64_t> apply_id = {});

}  // namespace perfsage::store
