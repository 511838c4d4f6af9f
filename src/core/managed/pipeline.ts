// A managed job's YAML, cut into its tasks: a multi-document file is a pipeline, run task
// after task (the optional first document holding only `name`/`execution` names it).
import { parse as parseYaml } from 'yaml';

export interface PipelineText {
  /** Each task's own YAML text, in order. */
  tasks: string[];
  /** From the header document, if there is one. */
  name?: string;
  /** Set when the file asks for something managed jobs do not run. */
  problem?: string;
}

/**
 * Cuts at document markers: a line starting `---` (then a blank or the line's end) is a
 * marker wherever it appears (YAML 1.2 §9.1.2 forbids it inside content), so a block scalar
 * cannot hold one and the cut is exact. Empty documents (comments, `~`) are dropped, as the
 * task parser does. The caller has already parsed the whole file, so every piece is valid YAML.
 */
export function splitPipeline(text: string): PipelineText {
  const docs: string[] = [];
  let cur: string[] = [];
  for (const line of text.replace(/^\uFEFF/, '').split('\n')) {
    const m = /^---(?:[ \t]+(.*))?\s*$/.exec(line);
    if (m) {
      docs.push(cur.join('\n'));
      cur = m[1] ? [m[1]] : [];
    } else if (/^\.\.\.\s*$/.test(line)) {
      docs.push(cur.join('\n'));
      cur = [];
    } else cur.push(line);
  }
  docs.push(cur.join('\n'));
  const nonEmpty = docs.filter((d) => parseYaml(d) != null).map((d) => `${d.replace(/\n*$/, '')}\n`);
  if (nonEmpty.length < 2) return { tasks: nonEmpty };
  const head = parseYaml(nonEmpty[0]) as Record<string, unknown>;
  const isHeader = typeof head === 'object' && !Array.isArray(head) && 'name' in head && Object.keys(head).every((k) => k === 'name' || k === 'execution');
  if (!isHeader) return { tasks: nonEmpty };
  const out: PipelineText = { tasks: nonEmpty.slice(1), name: typeof head.name === 'string' ? head.name : undefined };
  if (head.execution === 'parallel') out.problem = 'execution: parallel is not supported; managed pipelines run their tasks one after another (execution: serial)';
  return out;
}
