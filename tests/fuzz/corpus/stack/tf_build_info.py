build_info = collections.OrderedDict([('cuda_compute_capabilities', ['sm_35', 'compute_80']), ('cuda_version', '64_112')])
