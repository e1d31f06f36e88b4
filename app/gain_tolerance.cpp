#include "app/gain_tolerance.h"

namespace perfsage::app {

ShareMove share_move(double from, double to) {
  if (to > from * (1 + kGainShareTolerance) + 1e-12) return ShareMove::rising;
  if (to < from * (1 - kGainShareTolerance) - 1e-12) return ShareMove::falling;
  return ShareMove::steady;
}

std::string gain_trend(const std::vector<double>& shares, bool in_latest, bool only_latest) {
  if (!in_latest) return "resolved";
  if (only_latest || shares.size() < 2) return "new";
  switch (share_move(shares.front(), shares.back())) {
    case ShareMove::rising:
      return "rising";
    case ShareMove::falling:
      return "falling";
    case ShareMove::steady:
      break;
  }
  return "steady";
}

}  // namespace perfsage::app
