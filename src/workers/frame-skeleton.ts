// The frame outside its cached subtrees, kept per state (issue 28): the rest of a frame (~1.5 kB:
// top-level members, team scalars, text between subtrees) is kept as its previous frame's layout,
// reused with each subtree's current text and a new serverTime while no value there changed
// (./frame-leaves.ts compares ~150 of them; ./wire-serializer.ts decides and makes the skeleton).
import type { FrameLayout } from '../codec/layout-delta.js';
import { num } from './escaped-json.js';
import { storeText, textEntry, type SubtreeText } from './match/dirty.js';
import { SUFFIX } from './wire-text.js';

/** Text between subtrees, a cached subtree's text, a volatile member's value. */
export const enum SegmentKind { Gap, Subtree, Volatile }

/** A state's last frame outside its cached subtrees (wireSerializeLayout). */
export interface Skeleton {
  /** The values it showed there (sameLeaves). */
  leaves: unknown[];
  /** Its layout without the subtrees' texts (null: none to reuse; the last segment is serverTime's), each segment's subtree serializer. */
  layout: FrameLayout | null;
  /** A subtree's textOf, a volatile member's text of its holder; null for text between them. */
  fns: (((v: never) => unknown) | null)[];
  kinds: SegmentKind[];
}
const skeletons = new WeakMap<object, Skeleton>();

/** Frames made from a skeleton (tests and benchmarks read it). */
export let skeletonFrames = 0;

/** The state's skeleton (a new, empty one for a state not seen before). */
export function skeletonOf(state: object): Skeleton {
  let skeleton = skeletons.get(state);
  if (skeleton === undefined) skeletons.set(state, (skeleton = { leaves: [], layout: null, fns: [], kinds: [] }));
  return skeleton;
}

/**
 * The frame from the state's skeleton: its text between subtrees as before, each subtree's current
 * text, each volatile member's value, serverTime's segment anew. The layout's arrays are copies of the skeleton's
 * (its keys are the skeleton's own, never changed), patched where a segment is not a gap: no array
 * grows segment by segment.
 */
export function fromSkeleton(skeleton: Skeleton, serverTime: number): FrameLayout {
  skeletonFrames++;
  const prev = skeleton.layout!;
  const keys = prev.keys;
  const last = keys.length - 1;
  const texts = prev.texts.slice();
  const bytes = prev.bytes.slice();
  const offsets = prev.bytes.slice();
  let total = 0;
  for (let k = 0; k < last; k++) {
    const key = keys[k];
    if (key !== null) {
      if (skeleton.kinds[k] === SegmentKind.Volatile) {
        const text = (skeleton.fns[k] as (v: unknown) => string)(key);
        texts[k] = text;
        bytes[k] = Buffer.byteLength(text);
      } else {
        let t = textEntry(key);
        if (t === undefined || t.stale) t = storeText(key, t, (skeleton.fns[k] as (v: object) => SubtreeText)(key));
        if (t.bytes < 0) t.bytes = Buffer.byteLength(t.text);
        texts[k] = t.text;
        bytes[k] = t.bytes;
      }
    }
    offsets[k] = total;
    total += bytes[k];
  }
  const time = num(serverTime) + '}' + SUFFIX; // ASCII
  texts[last] = time;
  bytes[last] = time.length;
  offsets[last] = total;
  total += bytes[last];
  return { keys, texts, offsets, bytes, total };
}
