"""XManager's `xmanager.contrib.tpu`: the Dockerfile steps that install the TPU VM runtime
(libtpu and the TensorFlow build for it) in a PythonContainer bound for a TPU. The steps
download both from storage.googleapis.com when the image is built, so that build needs the
internet; the job needs TPU hardware (JobRequirements(tpu_v2=8) on xm_local.Vertex)."""

from typing import List

_ARTIFACTS = 'https://storage.googleapis.com/cloud-tpu-tpuvm-artifacts'
_WHEEL = 'tf_nightly-2.6.0-cp38-cp38-linux_x86_64.whl'


def tpuvm_docker_instructions() -> List[str]:
    """The TPU VM runtime of 2021-05-25 (XManager's): libtpu.so into /lib and its TensorFlow
    wheel, for Python 3.8."""
    return [f'RUN wget {_ARTIFACTS}/libtpu/20210525/libtpu.so -O /lib/libtpu.so',
            'RUN chmod 700 /lib/libtpu.so',
            f'RUN wget {_ARTIFACTS}/tensorflow/20210525/{_WHEEL}',
            f'RUN pip3 install {_WHEEL}',
            f'RUN rm {_WHEEL}']
