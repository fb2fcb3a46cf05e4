"""The language-server bench (`python -m bench.lsp_bench`) and the bare pygls server it compares with."""
