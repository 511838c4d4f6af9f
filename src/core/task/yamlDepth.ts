// How deeply a YAML stream nests, measured on the parser's token tree (flow `[ {` and block
// indentation alike) before it is turned into documents: composing and everything after it
// recurse, and a few thousand levels overflow the stack.

import { Lexer, type CST } from 'yaml';

/** No real task nests anywhere near this; Kubernetes pod specs under config: stay below 20. */
export const MAX_YAML_DEPTH = 100;

// The lexer's zero-width markers: document start, end of flow context, scalar follows.
const DOCUMENT = '\u0002';
const FLOW_END = '\u0018';
const SCALAR = '\u001f';

/**
 * A first pass with the lexer alone, ten times cheaper than the parser on `[[[[…`: the offset of
 * the first flow collection (`[` or `{`) nested deeper than `max`, or undefined.
 */
export function firstTooDeepFlow(text: string, max = MAX_YAML_DEPTH): number | undefined {
  let depth = 0;
  let offset = 0;
  let scalarNext = false;
  for (const token of new Lexer().lex(text)) {
    if (token === DOCUMENT || token === FLOW_END) {
      depth = 0;
      continue;
    }
    if (token === SCALAR) {
      scalarNext = true;
      continue;
    }
    if (scalarNext) scalarNext = false; // a scalar's text, even if it reads "["
    else if (token === '[' || token === '{') {
      if (++depth > max) return offset;
    } else if ((token === ']' || token === '}') && depth > 0) depth--;
    offset += token.length;
  }
  return undefined;
}

/** The offset of the first collection nested deeper than `max`, or undefined. Iterative. */
export function firstTooDeep(tokens: readonly CST.Token[], max = MAX_YAML_DEPTH): number | undefined {
  const stack: { token: CST.Token | null | undefined; depth: number }[] = [];
  for (let i = tokens.length - 1; i >= 0; i--) stack.push({ token: tokens[i], depth: 0 });
  while (stack.length) {
    const { token, depth } = stack.pop()!;
    if (!token) continue;
    switch (token.type) {
      case 'document':
        stack.push({ token: token.value, depth });
        break;
      case 'block-map':
      case 'block-seq':
      case 'flow-collection': {
        if (depth + 1 > max) return token.offset;
        // Reversed, so the first too-deep collection in the text is the one reported.
        for (let j = token.items.length - 1; j >= 0; j--) {
          const item = token.items[j] as CST.CollectionItem;
          stack.push({ token: item.value, depth: depth + 1 });
          stack.push({ token: item.key, depth: depth + 1 });
        }
        break;
      }
      default:
        break;
    }
  }
  return undefined;
}
