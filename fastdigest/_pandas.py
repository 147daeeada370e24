"""pandas DataFrames as digest_array, digest_rows and surrogate_key read them (python/data_api/arrow_capsules.c).

A DataFrame's own Arrow export (__arrow_c_stream__, pandas 2.2 and newer) is pyarrow's Table.from_pandas
of the whole frame: every column is converted, so one that pyarrow cannot convert (an object column of
anything but strings, bytes, numbers and dates) fails the call even when it is not hashed, and the
index becomes one more column unless it is a RangeIndex, so that the same rows would hash differently
after a sort or a filter. The extension hands a DataFrame here instead, and reads the table this returns:
the columns it hashes, converted by the same Table.from_pandas, and never the index.
"""

# A message lists this many of the table's columns at most, as the extension's does.
_LISTED_COLUMNS = 20


def missing_column(function, name, columns):
    """The KeyError of a column name that no column of the table has (the extension words it the same)."""
    listed = ', '.join(repr(column) for column in columns[:_LISTED_COLUMNS])
    if len(columns) > _LISTED_COLUMNS:
        listed += ', ... (%d in all)' % len(columns)
    return KeyError('%s(): the table has no column %r (its columns: %s)' % (function, name, listed or 'none'))


def table(frame, names, function):
    """A pyarrow Table of frame's columns named in names, a list or tuple of str (every column when
    None), without the index. A column's name is its label, str() of it when the label is no str, as
    Table.from_pandas names it."""
    try:
        import pyarrow as pa  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError as error:
        raise ImportError(
            '%s() reads a pandas DataFrame through pyarrow (Table.from_pandas), which is not installed: '
            'pip install pyarrow' % function,
            name='pyarrow',
        ) from error
    labels = list(frame.columns)
    if names is not None:
        columns = [label if isinstance(label, str) else str(label) for label in labels]
        for name in dict.fromkeys(names):
            count = columns.count(name)
            if count == 0:
                raise missing_column(function, name, columns)
            if count > 1:
                raise ValueError('%s(): the table has %d columns named %r: rename them first' % (function, count, name))
        wanted = set(names)
        positions = [i for i, column in enumerate(columns) if column in wanted]
        labels = [labels[i] for i in positions]
        if not frame.columns.is_unique:
            # Table.from_pandas refuses a frame in which any two columns share a name, even two it is not
            # asked to convert: it gets the columns asked for alone.
            frame = frame.iloc[:, positions]
    if not labels:
        # Table.from_pandas of no columns has no rows either: the rows of no columns are the frame's.
        return pa.table({'': pa.nulls(len(frame))}).select([])
    return pa.Table.from_pandas(frame, columns=labels, preserve_index=False)
