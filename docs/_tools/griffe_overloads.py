"""Griffe extension: a function that a stub declares only through @overload is documented.

A stub has no implementation to hang overloads on, so griffe keeps such a function's overloads aside and
makes no member of it (fastdigest.new, file_digest, digest_array, fastdigest.hmac.new). This makes the
member: the overloads' shared docstring (written on the first overload), the parameters of the overload
that has the most (the first of those: the stubs put the runtime's own signature there), and the union of
their return types (less NoReturn); the reference shows every overload's signature with it.
"""

import griffe


class OverloadOnlyFunctions(griffe.Extension):
    def on_module_members(self, *, mod, **kwargs):
        for name, overloads in list(mod.overloads.items()):
            if not overloads or name in mod.members:
                continue
            docstrings = [overload.docstring for overload in overloads if overload.docstring]
            returns = []
            for overload in overloads:
                for part in str(overload.returns).split(' | '):
                    if part not in returns and part != 'NoReturn':
                        returns.append(part)
            widest = max(overloads, key=lambda overload: len(overload.parameters))
            last = overloads[-1]
            function = griffe.Function(
                name,
                lineno=overloads[0].lineno,
                endlineno=last.endlineno,
                parameters=widest.parameters,
                returns=' | '.join(returns),
                docstring=docstrings[0] if docstrings else None,
                parent=mod,
            )
            if function.docstring is not None:
                function.docstring.parent = function
            function.overloads = overloads
            mod.set_member(name, function)
            del mod.overloads[name]
