"""Word, PowerPoint, OpenDocument and EPUB files: one extractor module (or package) each.

- `docx/`, `pptx/`, `odt.py`, `odp.py`, `epub.py`: the ZIP formats; `doc.py`, `ppt.py`:
  Word and PowerPoint 97-2003 (OLE compound files).
- `entry.py`: `run`, every extractor's body: sniff, hand a mislabelled file on, turn a
  refusal into one failed result, chunk the blocks a reader returns.
- `container.py`: the guard every container passes first (ZIP limits, safe XML, the
  failed result); `sniff.py`: what bytes are, whatever their name; `ole.py`: OLE files.
- `blocks.py` (what a reader returns), `ooxml.py`, `odf.py`, `charts.py`: what the
  readers share.
- `samples.py`, `ole_samples.py`: small valid files built in code, for tests and conformance.

Nothing is imported here: the spreadsheet and RTF extractors use the guard without
loading the office readers.
"""
