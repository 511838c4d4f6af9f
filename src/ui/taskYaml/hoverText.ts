// The whole hover for a position in a task YAML, as Markdown: the field's schema description,
// then, inside a file_mounts entry or a git workdir, what Skydeck will do with it. No vscode
// import (unit-tested in plain Node).

import { describeFieldAt } from './fieldDescriptions';
import { mountEntryAt } from './mountEntries';
import { taskCostMarkdown } from './costText';

export interface HoverText {
  markdown: string;
  /** Offsets [start, end) the hover belongs to. */
  start: number;
  end: number;
}

/** Markdown-escapes plain text (a field path), as MarkdownString.appendText does. */
function plain(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-!~]/g, (c) => `\\${c}`);
}

/** The hover at `offset`, or undefined where there is nothing to say. Never throws. */
export function taskHoverMarkdown(text: string, offset: number): HoverText | undefined {
  const field = describeFieldAt(text, offset);
  // Parsing the whole task costs more than the schema lookup: only where a mount can be.
  const mount = !field || /^(file_mounts|workdir)\b/.test(field.path) ? mountEntryAt(text, offset) : undefined;
  if (!field && !mount) return undefined;
  const parts: string[] = [];
  if (field) {
    // Schema descriptions are written with `code` spans, so they are Markdown already.
    parts.push(`**${plain(field.path)}**\n\n${field.description}`);
  }
  if (mount) parts.push(mount.hover);
  // On the `resources:` key itself: what launch would pick and the cheapest alternatives.
  if (field?.path === 'resources') {
    const cost = taskCostMarkdown(text);
    if (cost) parts.push(cost);
  }
  const start = field?.start ?? mount!.start;
  const end = field?.end ?? mount!.end;
  return { markdown: parts.join('\n\n'), start, end };
}
