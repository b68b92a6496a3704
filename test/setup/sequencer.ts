// The order test files start in: vitest's (groupOrder, project), then within a group the longest files
// first, by the wall times measured into test/setup/durations.json (scripts/test-durations.mjs), so
// that a 50 s file does not start last while the other workers run dry. vitest orders by its own
// duration cache, which lives in node_modules and is empty on a fresh clone (CI). Files not in the
// list (under 4 s) keep vitest's order after the listed ones.
import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const durations = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'durations.json'), 'utf8')) as Record<string, number>;

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const seconds = (spec: TestSpecification) => durations[path.relative(spec.project.config.root, spec.moduleId)] ?? 0;
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    // A stable sort: the base order stays between files of equal weight.
    return base.map((spec, i) => ({ spec, i })).sort((a, b) => group(a.spec) - group(b.spec) || seconds(b.spec) - seconds(a.spec) || a.i - b.i).map(({ spec }) => spec);
  }
}
