"""Prints the import graph of the agent package (or of any flat package dir) as JSON.

Read by layerCheck.ts; also run by hand to count what the layering is about:
  python3 test/unit/agent/importGraph.py agent/skydeck_agent_lib --stats

Only imports of the package's own modules are recorded. An import inside a def or class body
is "top": false; "names" are what `from .mod import a, b` takes. `from . import NAME` names a
module when NAME.py exists, else a name of the package's __init__. Calls of
importlib.import_module / __import__ are listed as dynamic: their target is not known without
running them.
"""
import ast
import json
import os
import sys

PACKAGE = 'skydeck_agent_lib'


def _modules(pkg_dir):
    return sorted(n[:-3] for n in os.listdir(pkg_dir) if n.endswith('.py'))


def _targets(node, mods):
    """Sibling modules an Import/ImportFrom node reaches."""
    if isinstance(node, ast.Import):
        return [a.name.split('.')[1] for a in node.names
                if a.name.startswith(PACKAGE + '.') and a.name.split('.')[1] in mods]
    if node.level == 0:
        if node.module != PACKAGE and not (node.module or '').startswith(PACKAGE + '.'):
            return []
        rest = node.module[len(PACKAGE) + 1:] if node.module != PACKAGE else None
    elif node.level == 1:
        rest = node.module
    else:
        return []  # above the package
    if rest:
        return [rest.split('.')[0]]
    return [a.name if a.name in mods else '__init__' for a in node.names]


def _is_dynamic(node):
    f = node.func
    return ((isinstance(f, ast.Attribute) and f.attr == 'import_module') or
            (isinstance(f, ast.Name) and f.id in ('__import__', 'import_module')))


def graph(pkg_dir):
    mods = set(_modules(pkg_dir))
    imports, dynamic = [], []

    def visit(node, name, nested):
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                 ast.ClassDef, ast.Lambda))
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                named = [a.name for a in child.names] if getattr(child, 'module', None) else []
                for t in _targets(child, mods):
                    if t != name:
                        imports.append({'from': name, 'to': t, 'line': child.lineno,
                                        'top': not nested, 'names': named})
            elif isinstance(child, ast.Call) and _is_dynamic(child):
                dynamic.append({'from': name, 'line': child.lineno})
            visit(child, name, inner)

    for name in sorted(mods):
        with open(os.path.join(pkg_dir, name + '.py'), 'rb') as f:
            visit(ast.parse(f.read(), name + '.py'), name, False)
    return {'modules': sorted(mods), 'imports': imports, 'dynamic': dynamic}


def cycles(g):
    """Strongly connected components of more than one module (Tarjan), every edge counted."""
    edges = {}
    for i in g['imports']:
        edges.setdefault(i['from'], set()).add(i['to'])
    index, low, stack, on, out = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in g['modules']:
        if v not in index:
            strong(v)
    return out


def stats(g):
    nested = [i for i in g['imports'] if not i['top']]
    pairs = set((i['from'], i['to']) for i in g['imports'])
    return {'function_level_sibling_imports': len(nested),
            'modules_with_them': sorted(set(i['from'] for i in nested)),
            'dynamic_imports': len(g['dynamic']),
            'mutual_pairs': sorted('%s<->%s' % p for p in pairs if p[0] < p[1] and p[::-1] in pairs),
            'cycles': cycles(g)}


if __name__ == '__main__':
    g = graph(sys.argv[1])
    json.dump(stats(g) if sys.argv[2:] == ['--stats'] else g, sys.stdout, indent=None)
    sys.stdout.write('\n')
