from .commands import api

api(prog_name="python -m codemods.maintain")
