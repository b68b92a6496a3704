// Dirty marks for the wire serializer's cached subtrees (docs/architecture.md, "Frames").
//
// The serializer (src/workers/wire-serializer.ts) keeps the escaped text of each player, each team's
// roundRecord and moneyRecord, and the tools, keyed by the object itself, and reuses it until the
// engine says the object changed: every rule that mutates one of these subtrees (or anything below it) calls
// touch() on the subtree's root object, which marks the text stale. Nothing is stored in the state itself,
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
  /** The subtree changed since `text` was made (touch): made again when next asked for. */
  stale: boolean;
}

/**
 * The texts of cached subtrees, by subtree root (a PlayerState, a roundRecord or moneyRecord array,
 * the Tools). A changed subtree's entry stays, marked stale, and takes its new text in place
 * (storeText): a key deleted and set again at every change filled V8's table with deleted entries,
 * which V8 cleared in its runtime every few hundred sets (1.1 % of the service's samples at 1,000
 * matches; docs/perf/message-path.md, "The subtree texts' table").
 */
export const subtreeTexts = new WeakMap<object, SubtreeText>();

/** The subtree rooted at `root` changed: its cached text is stale. */
export function touch(root: object): void {
  const t = subtreeTexts.get(root);
  if (t === undefined) return;
  t.stale = true;
  t.prev = null; // as a dropped text's: nothing asks for the edits of a stale text
  t.edits = null;
}

/** The subtree's cached text, or undefined when it must be made (none yet, or stale). */
export function cachedTextOf(root: object): SubtreeText | undefined {
  const t = subtreeTexts.get(root);
  return t === undefined || t.stale ? undefined : t;
}

/** The subtree's entry in the table, stale or not (undefined: none yet). */
export function textEntry(root: object): SubtreeText | undefined {
  return subtreeTexts.get(root);
}

/** Keeps `made`, the subtree's new text, as its cached text: in its entry `t` (textEntry's, stale) when it has one. */
export function storeText(root: object, t: SubtreeText | undefined, made: SubtreeText): SubtreeText {
  if (t === undefined) {
    subtreeTexts.set(root, made);
    return made;
  }
  t.text = made.text;
  t.bytes = made.bytes;
  t.prev = made.prev;
  t.edits = made.edits;
  t.stale = false;
  return t;
}
