// Writes an N-row op table scaled up from a real kernel_details / op_summary CSV.
// Usage: ascend_gen_op_table SAMPLE.csv ROWS OUT.csv
#include <fstream>
#include <iostream>
#include <sstream>

#include "ascend_scale.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: " << argv[0] << " SAMPLE.csv ROWS OUT.csv\n";
    return 2;
  }
  try {
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) throw std::runtime_error(std::string("cannot read ") + argv[1]);
    std::stringstream sample;
    sample << in.rdbuf();
    std::string csv = perfsage::bench::scale_op_table(sample.str(), std::stoll(argv[2]));
    std::ofstream(argv[3], std::ios::binary) << csv;
    std::cout << argv[3] << ": " << csv.size() << " bytes\n";
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
