"""Every modal dialog, by family: the base and generic ones (dialog.py), node operations
(node_dialogs.py), pod operations (pod_dialogs.py), Deployments (deployment_dialogs.py), scenario files
(file_dialogs.py) and the `:` view prompt (view_prompt.py)."""

from __future__ import annotations

from .deployment_dialogs import RolloutDialog, ScaleDialog, StrategyDialog
from .dialog import DIALOG_CSS, ConfirmDialog, Dialog, PickerDialog
from .file_dialogs import LoadDialog, SaveDialog
from .node_dialogs import OptionsDialog, TaintDialog, UntaintDialog
from .pod_dialogs import CreatePodDialog, DeletePodDialog
from .view_prompt import ViewPrompt

__all__ = ["DIALOG_CSS", "ConfirmDialog", "CreatePodDialog", "DeletePodDialog", "Dialog", "LoadDialog",
           "OptionsDialog", "PickerDialog", "RolloutDialog", "SaveDialog", "ScaleDialog", "StrategyDialog",
           "TaintDialog", "UntaintDialog", "ViewPrompt"]
