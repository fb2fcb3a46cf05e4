"""The project profile: languages, package managers, test suites, important paths, rules files.

`scan` walks a folder and `detect` reads its manifests into findings; `store`
keeps the result in `.cairn/profile.json`, refreshes it when git HEAD or a
rules file changes, and keeps the user's edits. Imports file access, never
the context engine. Import the submodules directly.
"""
