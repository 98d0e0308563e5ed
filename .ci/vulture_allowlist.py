"""Names the dead-code check (vulture) must not report: code that is called by name.

Each line names an attribute or variable that a framework or protocol reaches without a
call vulture can see. `_` stands for any object. Keep it short: a name that is merely
unused gets removed, not listed here.
"""

# pydantic: model settings and validators, run by the model class itself.
model_config
_._allowances_parse
_._labels_differ
_._env_allowances_parse
_._without_empty
_._without_none
_._without_unknown
_._without_unnotified
_._acknowledgeable
_._a_version
_._says_for_whom
_._read
# The report's documents (report/document.py): fields pydantic writes and reads by name.
schema_version
verified
context_changed
drifted
source_gone
unreachable
unverified

# The package's lazy public API (PEP 562): Python calls them by name.
__getattr__
__dir__

# typer and click: commands registered by decorator, methods click calls.
_root
merge
render_report
_.list_commands
_._handle_long_word
_.__signature__

# Protocols of dependencies: PyYAML's resolver, ruamel.yaml's constructor, the context
# manager's __exit__ arguments.
_.descend_resolver
_.ascend_resolver
implicit
_.Constructor
exc_type
traceback

# Fields written into a document (JSON report, state file) and read by its readers.
snapshot_date
from_url
last_error

# aiohttp's resolver interface (net/transport.py): the connector passes the
# address family by keyword; the guard answers every family the name has.
family

# The report formats' renderers (report/formats/__init__.py `FORMATTERS`): each named
# there as text and imported by name when a report is first rendered in its format.
render_github
render_html
render_json
render_json_bytes
render_junit
render_markdown
render_sarif
render_sarif_bytes
render_table
