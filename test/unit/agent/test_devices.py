"""Unit tests of the agent's per-device allocator (agent/skydeck_agent_lib/devices.py).

Run by devices.test.ts: python3 -m unittest discover -s test/unit/agent -p 'test_devices.py'.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', '..', 'agent'))
from skydeck_agent_lib import devices, driver, resources, spec  # noqa: E402
from skydeck_agent_lib.errors import AgentError  # noqa: E402

SMI = ('0, GPU-aaaa, NVIDIA A100-SXM4-80GB, 81920 MiB\n'
       'garbage line\n'
       '1, GPU-bbbb, NVIDIA A100-SXM4-80GB, 81920 MiB\n')


def two_a100():
    return devices.pools({'A100-80GB': 2.0}, devices.parse_nvidia_smi(SMI, resources.gpu_model))


class Inventory(unittest.TestCase):
    def test_parses_nvidia_smi_and_skips_bad_lines(self):
        devs = devices.parse_nvidia_smi(SMI, resources.gpu_model)
        self.assertEqual([(d['index'], d['uuid'], d['model'], d['memory_mb']) for d in devs],
                         [(0, 'GPU-aaaa', 'A100-80GB', 81920), (1, 'GPU-bbbb', 'A100-80GB', 81920)])

    def test_hostile_nvidia_smi_output_is_named_by_index_only(self):
        text = ('1, U1, NVIDIA "L4$(id)", 1 MiB\n1, U1b, NVIDIA L4, 1 MiB\n-1, U, L4, 1 MiB\n'
                'x, U, L4, 1 MiB\n0, U0, NVIDIA L4, lots\n' + '9, U9\n' * 5000)
        devs = devices.parse_nvidia_smi(text, resources.gpu_model)
        self.assertEqual([(d['index'], d['uuid'], d['memory_mb']) for d in devs], [(0, 'U0', None), (1, 'U1', 1)])
        odd = devs[1]['model']
        p = devices.pools({'L4': 1, odd: 1}, devs)
        self.assertEqual(p, {'l4': [('0', 'nvidia')], odd.lower(): [('1', 'nvidia')]})
        self.assertEqual(devices.env_for(p, [[odd.lower(), 0, 1.0]], {odd: 1}), {'CUDA_VISIBLE_DEVICES': '1'})

    def test_detected_devices_back_a_catalog_name_spelled_otherwise(self):
        devs = devices.parse_nvidia_smi('3, U3, NVIDIA A100-SXM4-80GB, 1 MiB\n', resources.gpu_model)
        self.assertEqual(devices.pools({'A100': 1}, devs), {'a100': [('3', 'nvidia')]})

    def test_declared_capacity_without_nvidia_smi_numbers_devices_from_zero(self):
        p = devices.pools({'MI300X': 2, 'Inferentia2': 1, 'tpu-v4-8': 1}, None)
        self.assertEqual(p['mi300x'], [('0', 'amd'), ('1', 'amd')])
        self.assertEqual(p['inferentia2'], [('0', 'neuron')])
        self.assertEqual(p['tpu-v4-8'], [('0', None)])

    def test_a_huge_declared_count_gets_no_slots(self):
        self.assertEqual(devices.pools({'L4': 1e9}, None), {})


class Assign(unittest.TestCase):
    def test_whole_jobs_get_distinct_devices_then_wait(self):
        p, used = two_a100(), {}
        a = devices.assign_all(p, used, {'A100-80GB': 1})
        devices.take(used, a)
        b = devices.assign_all(p, used, {'a100-80gb': 1})
        devices.take(used, b)
        self.assertEqual((a, b), ([['a100-80gb', 0, 1.0]], [['a100-80gb', 1, 1.0]]))
        self.assertIsNone(devices.assign_all(p, used, {'A100-80GB': 1}))
        self.assertIsNone(devices.assign_all(p, used, {'A100-80GB': 0.1}))

    def test_fractional_jobs_share_a_device_the_third_goes_to_the_next(self):
        p, used = two_a100(), {}
        got = []
        for _ in range(4):
            a = devices.assign_all(p, used, {'A100-80GB': 0.5})
            devices.take(used, a)
            got.append(a[0][1])
        self.assertEqual(got, [0, 0, 1, 1])
        self.assertIsNone(devices.assign_all(p, used, {'A100-80GB': 0.5}))

    def test_mixed_whole_waits_for_a_fully_free_device(self):
        p, used = two_a100(), {}
        devices.take(used, devices.assign_all(p, used, {'A100-80GB': 0.25}))
        whole = devices.assign_all(p, used, {'A100-80GB': 1})
        self.assertEqual(whole, [['a100-80gb', 1, 1.0]])
        devices.take(used, whole)
        self.assertIsNone(devices.assign_all(p, used, {'A100-80GB': 2}))
        self.assertEqual(devices.assign_all(p, used, {'A100-80GB': 0.75}), [['a100-80gb', 0, 0.75]])

    def test_exhaustion_then_release(self):
        p, used = two_a100(), {}
        a = devices.assign_all(p, used, {'A100-80GB': 2})
        devices.take(used, a)
        self.assertIsNone(devices.assign_all(p, used, {'A100-80GB': 1}))
        for key, pos, share in a:  # the job ended: what the scheduler recounts no longer has it
            used[(key, pos)] -= share
        self.assertEqual(devices.assign_all(p, used, {'A100-80GB': 1}), [['a100-80gb', 0, 1.0]])

    def test_bad_counts_never_fit(self):
        p = two_a100()
        for count in (-1, 0, 1e9, float('nan'), float('inf'), 1.5, '1', None):
            self.assertIsNone(devices.assign(p['a100-80gb'], {}, count), repr(count))

    def test_a_name_without_a_pool_is_accounted_in_total_only(self):
        self.assertEqual(devices.assign_all(two_a100(), {}, {'H100': 1}), [])


class Env(unittest.TestCase):
    def test_variables_name_the_devices_by_vendor(self):
        p = two_a100()
        self.assertEqual(devices.env_for(p, [['a100-80gb', 1, 1.0], ['a100-80gb', 0, 1.0]], {'A100-80GB': 2}),
                         {'CUDA_VISIBLE_DEVICES': '0,1'})
        amd = devices.pools({'MI300X': 2}, None)
        self.assertEqual(devices.env_for(amd, [['mi300x', 1, 0.5]], {'MI300X': 0.5}),
                         {'CUDA_VISIBLE_DEVICES': '', 'ROCR_VISIBLE_DEVICES': '1', 'HIP_VISIBLE_DEVICES': '1'})
        neuron = devices.pools({'Inferentia2': 2}, None)
        self.assertEqual(devices.env_for(neuron, [['inferentia2', 1, 1.0]], {'Inferentia2': 1}),
                         {'CUDA_VISIBLE_DEVICES': '', 'NEURON_RT_VISIBLE_CORES': '2-3'})

    def test_no_accelerators_hides_gpus_as_skypilot_does(self):
        self.assertEqual(devices.env_for(two_a100(), [], None), {'CUDA_VISIBLE_DEVICES': ''})
        self.assertEqual(devices.env_for({}, [], None), {'CUDA_VISIBLE_DEVICES': ''})

    def test_devices_we_cannot_name_are_left_alone(self):
        self.assertEqual(devices.env_for({}, [], {'L4': 1}), {})

    def test_one_device_held_twice_is_named_once(self):
        self.assertEqual(devices.env_for(two_a100(), [['a100-80gb', 0, 0.5], ['a100-80gb', 0, 0.5]], None),
                         {'CUDA_VISIBLE_DEVICES': '0'})


class SetupSees(unittest.TestCase):
    def test_setup_runs_without_our_variables_but_keeps_the_jobs_own(self):
        env = {'CUDA_VISIBLE_DEVICES': '1', 'ROCR_VISIBLE_DEVICES': '', 'HIP_VISIBLE_DEVICES': ''}
        self.assertEqual(driver.setup_unset(env, {'envs': {}, 'secret_names': []}),
                         'CUDA_VISIBLE_DEVICES HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES')
        self.assertEqual(driver.setup_unset(env, {'envs': {'CUDA_VISIBLE_DEVICES': '7'},
                                                  'secret_names': ['HIP_VISIBLE_DEVICES']}),
                         'ROCR_VISIBLE_DEVICES')
        self.assertEqual(driver.setup_unset(None, {'envs': {}}), '')


class Spec(unittest.TestCase):
    def bad(self, acc):
        with self.assertRaises(AgentError) as e:
            spec.validate({'run': 'true', 'resources': {'accelerators': acc}})
        return e.exception.code

    def test_bad_accelerator_input_is_refused(self):
        for acc in ('A100:-1', 'A100:0', 'A100:1.5', 'A100:nan', "A1'00:1", 'A100":1', 'A100:$(id)',
                    {'A100': True}, {'A100;rm': 1}, {'A\n100': 1}):
            self.assertEqual(self.bad(acc), 'invalid_spec', repr(acc))

    def test_a_huge_count_is_valid_but_never_fits(self):
        s = spec.validate({'run': 'true', 'resources': {'accelerators': 'A100:1e9'}})
        self.assertEqual(s['resources']['accelerators'], {'A100': 1e9})
        self.assertIsNone(devices.assign_all(two_a100(), {}, {'A100-80GB': 1e9}))


if __name__ == '__main__':
    unittest.main()
