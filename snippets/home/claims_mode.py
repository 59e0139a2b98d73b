"""Whether the build that made this copy of the book refused unchecked printed values.

`bookkit.claims` checks what snippets print only when `BOOKKIT_CLAIMS=strict` (the switch goes
once every chapter prints through it), so the home page says which way this build ran instead
of promising either.
"""

from bookkit import claims

if claims.ENFORCED:
    print(
        "This copy was built with the check on (`BOOKKIT_CLAIMS=strict`): a snippet that "
        "printed a number or a yes/no without `checked` or `given` would have stopped the build."
    )
else:
    print(
        "This copy was built with the check off (`BOOKKIT_CLAIMS` was not `strict`), so here a "
        "printed value is checked only where its snippet checks it; the chapters are still "
        "moving to the mechanism."
    )
