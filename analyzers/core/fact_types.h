// Every fact type packs may use, declared beside the analyzers whose tables it reads: one
// declare_*_facts function per analyzer folder (facts.cpp), collected here in documentation
// order. The application hands them to the engine (engine::facts::Catalog); the analyzers do
// not know the engine.
#pragma once

#include <vector>

#include "store/fact_type.h"

namespace perfsage::analyzers {

// The declared types with their shared CTEs ({common}: the run's span, steps and base) filled in.
std::vector<store::FactType> fact_types();

void declare_run_facts(std::vector<store::FactType>& out);        // core/run_facts.cpp
void declare_op_facts(std::vector<store::FactType>& out);         // core/op_facts.cpp
void declare_gpu_facts(std::vector<store::FactType>& out);        // gpu/facts.cpp
void declare_gpu_host_facts(std::vector<store::FactType>& out);   // gpu/host_facts.cpp
void declare_gpu_range_facts(std::vector<store::FactType>& out);  // gpu/range_facts.cpp
void declare_graph_facts(std::vector<store::FactType>& out);      // graph/facts.cpp
void declare_patterns_facts(std::vector<store::FactType>& out);   // patterns/facts.cpp
void declare_iteration_facts(std::vector<store::FactType>& out);  // iteration/facts.cpp
void declare_roofline_facts(std::vector<store::FactType>& out);   // roofline/facts.cpp

}  // namespace perfsage::analyzers
