// The daemon's job queue, named through app/: the daemon owns and writes the queue (a SQLite
// file of its own, store/job_queue.h), so it holds these types itself; what the API shows of
// the queue is read through app/queue_view.h.
#pragma once

#include "store/job_queue.h"

namespace perfsage::app {

using JobQueue = store::JobQueue;
using SqliteJobQueue = store::SqliteJobQueue;
using QueuedJob = store::QueuedJob;
using JobSpec = store::JobSpec;
using JobState = store::JobState;
using JobKind = store::JobKind;
using RankInputs = store::RankInputs;
using FailureKind = store::FailureKind;
using QueuePolicy = store::QueuePolicy;
using Dedup = store::Dedup;
using EnqueueResult = store::EnqueueResult;
using store::parse_job_state;
using store::to_string;

}  // namespace perfsage::app
