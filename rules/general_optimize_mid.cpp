#include "rules/general_optimize_mid.h"

namespace ori {

double midRoundCost(const MemToRegCounts &promoted, const GeneralOptimizeCounts &suite) {
  return promoted.cost + double(suite.usesReplaced) + double(suite.selectsToCopies) +
         double(suite.guardsResolved);
}

void addMidRound(MidOptimizeResult &total, const MemToRegCounts &promoted,
                 const GeneralOptimizeResult &suite) {
  MemToRegCounts &m = total.memToReg;
  m.slotsPromoted += promoted.slotsPromoted;
  m.loadsReplaced += promoted.loadsReplaced;
  m.storesReplaced += promoted.storesReplaced;
  m.slotsKeptByCost += promoted.slotsKeptByCost;
  m.slotsUninitialized += promoted.slotsUninitialized;
  m.variablesEscaping += promoted.variablesEscaping;
  m.cost += promoted.cost;
  const uint32_t before = total.suite.counts.rounds;
  GeneralOptimizeCounts &c = total.suite.counts;
  c.usesReplaced += suite.counts.usesReplaced;
  c.selectsToCopies += suite.counts.selectsToCopies;
  c.guardsResolved += suite.counts.guardsResolved;
  c.removed += suite.counts.removed;
  c.evaluated += suite.counts.evaluated;
  c.rounds = before + suite.counts.rounds;
  for (FoldMark mark : suite.marks) {
    mark.round += before;
    total.suite.marks.push_back(mark);
  }
  ++total.rounds;
}

} // namespace ori
