"""Per-device accounting: which devices of a node a job holds, and the variables naming them.

The inventory comes from the node once per boot (nvidia-smi, cached by resources.capacity with
the rest of the detection) or, without it, from the declared capacity (the cluster's catalog
entry): N devices of that model, numbered 0..N-1. A pool is one accelerator name's devices;
a slot is one device of a pool. A job asking for less than one device takes that share of the
first slot with room (so two 0.5 jobs share device 0 and a third goes to device 1); a job
asking for k >= 1 takes k whole, unshared slots. Every step is O(devices) per job.
"""
import math
import re

EPS = 1e-6
# A declared count above this is accounted in total only: no slots, no pinning.
MAX_SLOTS = 1024

# Which variable names a vendor's devices (what Ray, which SkyPilot runs jobs with, sets).
VARS = {'nvidia': ('CUDA_VISIBLE_DEVICES',),
        'amd': ('ROCR_VISIBLE_DEVICES', 'HIP_VISIBLE_DEVICES'),
        'neuron': ('NEURON_RT_VISIBLE_CORES',)}
ALL_VARS = tuple(v for k in ('nvidia', 'amd', 'neuron') for v in VARS[k])
# Neuron runtimes pin cores, not devices: cores per device of each generation.
NEURON_CORES = {'inferentia': 4, 'inferentia2': 2, 'trainium': 2, 'trainium2': 8}
_AMD = re.compile(r'^(mi\d+[a-z]*|radeon.*|instinct.*)$')
_NONE = re.compile(r'tpu|gaudi')  # accounted, but no visible-devices variable of ours


def vendor_of(name):
    """The vendor of a catalog accelerator name (the catalogs carry no vendor field)."""
    n = name.lower()
    if n in NEURON_CORES:
        return 'neuron'
    if _AMD.match(n):
        return 'amd'
    if _NONE.search(n):
        return None
    return 'nvidia'


def parse_nvidia_smi(text, model_of):
    """Lines of `--query-gpu=index,uuid,name,memory.total --format=csv,noheader` -> devices.

    A line that does not parse is skipped (a driver warning, a truncated line), and so is a
    second line of one index: two jobs must never be handed one device as two."""
    out, seen = [], set()
    for line in text.splitlines()[:MAX_SLOTS]:
        parts = [p.strip() for p in line.split(',')]
        if len(parts) < 4 or not parts[0].isdigit() or int(parts[0]) in seen:
            continue
        seen.add(int(parts[0]))
        mem = parts[-1].split()
        name = ', '.join(parts[2:-1])
        out.append({'index': int(parts[0]), 'uuid': parts[1], 'name': name,
                    'memory_mb': int(mem[0]) if mem and mem[0].isdigit() else None,
                    'model': model_of(name), 'vendor': 'nvidia'})
    out.sort(key=lambda d: d['index'])
    return out


def detect(model_of):
    """This node's devices, or None without nvidia-smi (or when it fails)."""
    # Imported here: every job's end report loads this module, and these two cost it ~11 ms.
    import shutil
    import subprocess
    exe = shutil.which('nvidia-smi')
    if not exe:
        return None
    try:
        out = subprocess.run([exe, '--query-gpu=index,uuid,name,memory.total', '--format=csv,noheader'],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=20,
                             universal_newlines=True).stdout
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        return None
    return parse_nvidia_smi(out, model_of) or None


def pools(cap_accs, detected):
    """{lower-cased name: [(device id, vendor)]} for the node's accelerator capacity.

    Detected devices of the same model back a pool; when the capacity names one model and the
    node reports devices under another spelling (catalog A100, nvidia-smi A100-80GB), the
    detected devices back it still: the numbers must be the node's own."""
    by_model = {}
    for d in detected or ():
        by_model.setdefault(d['model'].lower(), []).append(d)
    names = list(cap_accs or {})
    out = {}
    for name in names:
        key, count = name.lower(), cap_accs[name]
        devs = by_model.get(key) or (detected if len(names) == 1 else None)
        if devs:
            out[key] = [(str(d['index']), d.get('vendor') or 'nvidia') for d in devs]
        elif isinstance(count, (int, float)) and 0 < count <= MAX_SLOTS:
            vendor = vendor_of(name)
            out[key] = [(str(i), vendor) for i in range(int(math.ceil(count - EPS)))]
    return out


def assign(slots, used, count):
    """Slots for `count` devices of one pool: [(pos, share)], or None when they are not free.

    used: {pos: share held}. Bad counts (negative, NaN, huge, a fraction above one) never fit."""
    if not isinstance(count, (int, float)) or not (count > EPS) or count > len(slots) + EPS:
        return None
    if count < 1 - EPS:
        for pos in range(len(slots)):
            if 1.0 - used.get(pos, 0.0) >= count - EPS:
                return [(pos, count)]
        return None
    whole = int(round(count))
    if abs(count - whole) > EPS:
        return None
    free = [pos for pos in range(len(slots)) if used.get(pos, 0.0) <= EPS][:whole]
    return [(pos, 1.0) for pos in free] if len(free) == whole else None


def assign_all(node_pools, used, demand_accs):
    """A job's slots on one node: [[key, pos, share]], or None if any of its devices is not free.

    used: {(key, pos): share} of the node, left unchanged. Names without a pool (more than
    MAX_SLOTS declared, or no capacity of that name) are accounted in total only."""
    held = {}
    out = []
    for name, count in (demand_accs or {}).items():
        key = name.lower()
        slots = node_pools.get(key)
        if slots is None:
            continue
        mine = dict((pos, used.get((key, pos), 0.0) + held.get((key, pos), 0.0))
                    for pos in range(len(slots)) if (key, pos) in used or (key, pos) in held)
        got = assign(slots, mine, count)
        if got is None:
            return None
        for pos, share in got:
            held[(key, pos)] = held.get((key, pos), 0.0) + share
            out.append([key, pos, share])
    return out


def take(used, alloc):
    for key, pos, share in alloc:
        used[(key, pos)] = used.get((key, pos), 0.0) + share


def env_for(node_pools, alloc, demand_accs):
    """The visible-devices variables of a job on one node.

    Like SkyPilot, whose jobs Ray starts: a job that asks for no GPU gets CUDA_VISIBLE_DEVICES
    set to the empty string (no GPU visible), AMD nodes the same for their variables; a job's
    devices are named by index, in order, a shared device by its index too. A demand with no
    pool leaves its vendor's variables alone (we cannot name those devices)."""
    ids = {}
    for key, pos, _ in sorted(alloc or (), key=lambda a: (a[0], a[1])):
        dev, vendor = node_pools[key][pos]
        if vendor == 'neuron':
            per = NEURON_CORES.get(key, 1)
            dev = '%d-%d' % (int(dev) * per, int(dev) * per + per - 1) if per > 1 else dev
        got = ids.setdefault(vendor, [])
        if dev not in got:  # "L4:0.5,l4:0.5" holds one device twice
            got.append(dev)
    env = {'CUDA_VISIBLE_DEVICES': ''}
    if any(v == 'amd' for s in node_pools.values() for _, v in s[:1]):
        env.update(dict((v, '') for v in VARS['amd']))
    for name in demand_accs or {}:
        if name.lower() not in node_pools:
            for v in VARS.get(vendor_of(name)) or ():
                env.pop(v, None)
    for vendor, devs in ids.items():
        for v in VARS.get(vendor) or ():
            env[v] = ','.join(devs)
    return env
