// Dirty marks for the wire serializer's cached subtrees (docs/architecture.md, "Frames").
//
// The serializer (src/workers/wire-serializer.ts) keeps the escaped text of each player, each team's
// roundRecord and moneyRecord, and the tools, keyed by the object itself, and reuses it until the
// engine says the object changed: every rule that mutates one of these subtrees (or anything below it) calls
// touch() on the subtree's root object, which drops the text. Nothing is stored in the state itself,
// so snapshots (JSON.stringify of the state) never see a mark, and a state rebuilt from a snapshot
// is new objects without any text: everything is serialized afresh.
//
// A rule that forgets to touch leaves a stale text behind: test/workers/match/serializer-marks.test.ts and the
// engine tests (test/helpers/engine.ts) compare the cached serialization with a from-scratch one
// after every applied message.

/**
 * The escaped text of a cached subtree and its length in UTF-8 bytes (-1: not measured yet). A text
 * patched from the subtree's previous text `prev` (src/workers/subtree-patch.ts) says where they
 * differ: `edits`, [oldStart, oldEnd, newStart, newEnd] per replaced stretch, in UTF-16 units; the
 * delta encoder uses them when the previous frame showed `prev`. Both null for a text made whole.
 */
export interface SubtreeText {
  text: string;
  bytes: number;
  prev: string | null;
  edits: number[] | null;
}

/** Texts of unchanged subtrees, by subtree root (a PlayerState, a roundRecord or moneyRecord array, the Tools). */
export const subtreeTexts = new WeakMap<object, SubtreeText>();

/** The subtree rooted at `root` changed: its cached text is dropped. */
export function touch(root: object): void {
  subtreeTexts.delete(root);
}
