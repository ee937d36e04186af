"""The policy editor's logic, under the views that use it.

`actions.py` reads and saves a tenant's policy versions; `forms.py` (with
`decision_form.py`, `fields.py` and `tool_forms.py`) is the editor's forms; `submit.py`
reads an editor submission back into a policy document; `labels.py` names its fields for
people; `yaml_io.py` imports and exports a policy as YAML; `trial.py` runs a draft policy
on a sample answer ("Test policy").
"""
