// The economy record behind the overlay's economy graph (docs/match-rules.md 8.1): per team and
// round, the credits the team had when the round's buy phase began and what it spent in it.
//
// Derived exactly from the scoreboard rows through the shared row update (4.2.1), which resets
// `moneySpent` and `spentMoneyThisRound` at every `shopping` and then counts every change after a
// player's first decrease as spending (a rise after it, a sell-back, as negative spending). So,
// during the buy phase, `money + moneySpent` is the player's money just before their first
// purchase, or their current money if they have not bought yet: income that arrives in several
// rows after the phase change is counted once, at its final value. Outside the buy phase the entry
// is frozen (the plant bonus in combat and the next round's income are not spending).
// Kept for supporter organisations only, like upstream; other matches broadcast `[]`.

import { touch } from './dirty.js';
import type { MatchState, TeamState } from './types.js';

/** Round `state.roundNumber`'s buy phase begins: each team's entry for it, from the money now. */
export function startMoneyRecord(state: MatchState): void {
  if (!state.orgIsSupporter) return;
  const round = state.roundNumber;
  for (const team of state.teams) {
    const record = team.moneyRecord;
    touch(record);
    // A repeated `shopping` (or a round number that went back) starts that round's entry again.
    while (record.length > 0 && record[record.length - 1].round >= round) record.pop();
    record.push({ round, start: 0, spent: 0 });
    updateMoneyRecord(state, team);
  }
}

/** After rows of `team` were applied: in the buy phase, its current round's entry follows them. */
export function updateMoneyRecord(state: MatchState, team: TeamState): void {
  if (state.roundPhase !== 'shopping' || !state.orgIsSupporter) return;
  const record = team.moneyRecord;
  const entry = record[record.length - 1];
  if (entry === undefined || entry.round !== state.roundNumber) return;
  let start = 0;
  let spent = 0;
  const players = team.players;
  for (let i = 0; i < players.length; i++) {
    start += players[i].money + players[i].moneySpent;
    spent += players[i].moneySpent;
  }
  if (entry.start === start && entry.spent === spent) return;
  touch(record);
  entry.start = start;
  entry.spent = spent;
}
