"""Grow a knowledge base from outside sources: OpenML run histories and ASlib scenarios.

CSV and Parquet run files are imported by :meth:`metarec.storage.KnowledgeBase.import_runs`
(``metarec import runs FILE``); this subpackage adds the sources that need translating:

* :func:`ingest_openml` pages through OpenML's evaluations, joins accuracy and runtime by run,
  maps tasks to datasets and flows to algorithms, and stores the datasets' qualities as
  metafeatures.  All OpenML access goes through :class:`OpenMLClient` (the only code in
  metarec that imports ``openml``).
* :func:`ingest_aslib` reads an ASlib scenario folder.
"""

from metarec._openml import Evaluation, OpenMLClient, TaskInfo
from metarec.ingest._aslib import (
    AslibIngestReport,
    AslibScenario,
    ingest_aslib,
    parse_description,
    read_aslib_scenario,
)
from metarec.ingest._errors import OpenMLError, ScenarioError, plain_numbers
from metarec.ingest._openml import (
    OpenMLIngestReport,
    ingest_openml,
    openml_algorithm_name,
    openml_dataset_name,
    openml_protocol,
)

__all__ = [
    "AslibIngestReport",
    "AslibScenario",
    "Evaluation",
    "OpenMLClient",
    "OpenMLError",
    "OpenMLIngestReport",
    "ScenarioError",
    "TaskInfo",
    "ingest_aslib",
    "ingest_openml",
    "openml_algorithm_name",
    "openml_dataset_name",
    "openml_protocol",
    "parse_description",
    "plain_numbers",
    "read_aslib_scenario",
]
