"""TorchX's `torchx.components.serve`: refused by name (TorchX's torchserve component runs a
TorchX app, torchx.apps.serve.serve, that sortie does not carry)."""

from sortie import _refusal

torchserve = _refusal.refused_method(
    'serve.torchserve', 'register the model with TorchServe\'s management API yourself, e.g. '
    'utils.sh(\'curl\', \'-X\', \'POST\', \'MANAGEMENT_API/models?url=MODEL_PATH\')')
