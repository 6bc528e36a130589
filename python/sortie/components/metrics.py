"""TorchX's `torchx.components.metrics`: a TensorBoard server as an app."""

from sortie import _refusal
from sortie import specs

_IMAGE = '.'


def tensorboard(logdir: str, image: str = _IMAGE, timeout: float = 60 * 60, port: int = 6006,
                start_on_file: str = '', exit_on_file: str = '') -> specs.AppDef:
    """TensorBoard on `logdir`, reachable on `port` (the role's port_map), stopped after
    `timeout` seconds. The image must have the tensorboard command."""
    if start_on_file or exit_on_file:
        raise _refusal.refusal('metrics.tensorboard(start_on_file=, exit_on_file=)',
                               'stop the app with `sortie cancel` or Runner.cancel')
    return specs.AppDef('tensorboard', [specs.Role(
        'tensorboard', image=image, entrypoint='timeout',
        args=[str(int(timeout)), 'tensorboard', '--bind_all', '--port', str(port), '--logdir',
              logdir],
        port_map={'http': port}, resource=specs.resource(cpu=1, gpu=0, memMB=1024))])
