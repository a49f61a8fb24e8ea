"""The report's sections and their three renderings, written once.

A part of a report (the answer's findings, the flush ceiling, the seeds'
claims, the Linux side by side) gives its sections: (title, qualifier,
lines), the qualifier being what its figures are (a hardware answer, not
one and why, exact counts, no data). Text, Markdown and JSON render them
here, alike for every part, so that no part can print a figure without
its qualifier in one form and with it in another.
"""


def text(sections):
    """  title:\n    qualifier:\n      line ... (a blank line before each)."""
    out = []
    for title, q, body in sections:
        out += ["", f"{title}:", f"  {q}:"] + ["    " + b for b in body]
    return "\n".join(out)


def markdown(sections):
    """## Title, the qualifier in bold, the lines as a list."""
    out = []
    for title, q, body in sections:
        out += ["", f"## {title[:1].upper()}{title[1:]}", "", f"**{q}**", ""]
        out += [f"- {b}" for b in body]
    return "\n".join(out) + "\n"


def as_json(sections):
    """[{title, qualifier, lines}]."""
    return [{"title": t, "qualifier": q, "lines": list(b)} for t, q, b in sections]
