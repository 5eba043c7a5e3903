"""Does an evaluation drop repeated samples by id before it scores (rule FS109)?

A padded ``DistributedSampler`` repeats up to W-1 samples; an evaluation that
keeps one result per sample id or key counts each sample once whatever was
repeated, so the padding does no harm there. The forms read here:

- ``np.unique(ids, return_index=True)``, ``torch.unique(ids)``, ``ids.unique()``;
- results kept in a dict keyed by a sample id (``predictions[sample_id] = ...``,
  a repeat overwrites itself), the id read directly or through a name
  assigned from it in the same function (``i = int(ids[b])``);
- a merge that skips keys already seen (``if key in seen[name]: continue`` in a
  loop that then adds ``key`` to ``seen[name]``, or ``if key not in seen:`` that
  adds it);
- a known de-duplicating evaluator named in the file (DETR's ``CocoEvaluator``);
- gathered results cut back to the evaluation set's length
  (``merge_distributed(predicts, len(eval_data))``, ``outputs[:len(dataset)]``
  beside a gather, ``distributed_concat(preds, len(dataset))``);
- results written into a table's rows looked up by sample id
  (``df.loc[id_to_row[sid], col] = ...``);
- results kept in a dict keyed by a value of the batch (a file name), gathered
  with ``all_gather_object`` and merged with ``update``;
- the number of repeats worked out to be taken off (``len(dataset) %
  world_size`` in the function that scores);
- records kept first by a key they carry (``d.setdefault(r["name"], r)`` in
  a loop over the records);
- a table cut to one row per key (``df.drop_duplicates(...)``,
  ``df.groupby("code").sample(n=1)``).

Where each form counts is said by :func:`deduplicates`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .consumers import block_of, carrying_names, consumer_sites, defs_of
from .context import rebound_later, target_names
from .names import Module, dotted, name_words, tail
from .positions import WHOLE, returned_at
from .rank_cuts import FILLING

__all__ = ["deduplicates", "deduplicates_at", "scope_deduplicates", "world_size_of"]

_ID_WORDS = frozenset({"id", "ids", "idx", "idxs", "index", "indices", "uid", "key", "keys"})

#: Evaluators known to keep one result per image id, named where the script uses
#: them: the COCO evaluator of torchvision's detection references, which DETR,
#: Deformable-DETR and their descendants copy (``merge`` keeps the first
#: evaluation of each image id, ``np.unique(..., return_index=True)``).
_DEDUPLICATING_EVALUATORS = frozenset({"CocoEvaluator", "coco_evaluator"})

_DICTS = frozenset({"dict", "defaultdict", "OrderedDict"})

Scope = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef


#: Words that make an id something other than a sample's (``input_ids``, ``class_idx``;
#: ``dataset_state[worker_id]``, a loader's resume state by worker, ``rank_id``, ``gpu_id``).
_NOT_SAMPLE = frozenset(
    {"input", "token", "tokens", "position", "vocab", "class", "label"}
    | {"worker", "rank", "gpu", "device", "process", "proc", "node", "thread"}
)


def _says_id(node: ast.AST, ids: frozenset[str] = _ID_WORDS) -> bool:
    """The expression names a sample id (``sample_id``, ``ids[b]``, ``batch["idx"]``)."""
    words = set(name_words(ast.unparse(node)))
    return bool(words & ids) and not words & _NOT_SAMPLE


#: A dict keyed by ``key`` is most often a state dict or a config, not results by sample.
_SAMPLE_IDS = _ID_WORDS - {"key", "keys"}


def _unique_by_id(scope: ast.AST) -> bool:
    for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call)):
        if tail(call) != "unique":
            continue
        parts = [*call.args, call.func.value] if isinstance(call.func, ast.Attribute) else call.args
        if any(_says_id(part) for part in parts):
            return True
    return False


#: pandas calls that keep one row of each group (``df.groupby("code").sample(n=1)``).
_ONE_PER_GROUP = frozenset({"first", "last", "head", "tail", "sample", "nth"})


def _one_row_per_key(scope: ast.AST) -> bool:
    """A table of results cut to one row per key: the repeats are dropped by name.

    ``df.drop_duplicates(...)``, or a group per key of which one row is kept
    (uniDINO's ``code_df.groupby(by=["codes"]).sample(n=1)`` over codes
    numbered ``0..len(X)-1`` for this purpose; ``.first()``, ``.head(1)``).
    """
    for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call)):
        if tail(call) == "drop_duplicates":
            return True
        if tail(call) not in _ONE_PER_GROUP or not isinstance(call.func, ast.Attribute):
            continue
        grouped = call.func.value
        if not (isinstance(grouped, ast.Call) and tail(grouped) == "groupby"):
            continue
        if tail(call) in ("first", "last") or any(
            isinstance(a, ast.Constant) and a.value == 1
            for a in [*call.args, *(k.value for k in call.keywords if k.arg == "n")]
        ):
            return True
    return False


def _is_new_dict(value: ast.AST) -> bool:
    return isinstance(value, ast.Dict | ast.DictComp) or (
        isinstance(value, ast.Call) and tail(value) in _DICTS
    )


def _keyed_by_id(func: ast.AST) -> bool:
    """``results = {}`` then ``results[sample_id] = ...`` in one function."""
    assigns = [n for n in ast.walk(func) if isinstance(n, ast.Assign)]
    dicts = {
        name for a in assigns if _is_new_dict(a.value) for t in a.targets if (name := dotted(t))
    }
    ids = {name for a in assigns if _says_id(a.value) for t in a.targets if (name := dotted(t))}
    for node in assigns:
        for target in node.targets:
            if (
                isinstance(target, ast.Subscript)
                and dotted(target.value) in dicts
                # a literal key (``batch["target_ids"]``) names a field, the same for every
                # sample: no repeat overwrites itself under it
                and not isinstance(target.slice, ast.Constant)
                and (_says_id(target.slice, _SAMPLE_IDS) or dotted(target.slice) in ids)
            ):
                return True
    return False


_OBJECT_GATHERS = frozenset({"all_gather_object", "gather_object"})


def _merged_by_key(func: ast.AST) -> bool:
    """Results keyed by a value of the batch, gathered as objects and merged with ``update``.

    ``feats[data[1][0]] = embedding`` in the loop over the loader (the key a
    file name the batch carries), then ``all_gather_object(all_feats, feats)``
    and ``merged.update(part)``: a repeated sample overwrites its own entry,
    in one rank's dict and across the ranks'.
    """
    calls = [n for n in ast.walk(func) if isinstance(n, ast.Call)]
    gathered = {dotted(arg) for c in calls if tail(c) in _OBJECT_GATHERS for arg in c.args[1:2]} - {
        None
    }
    if not gathered or not any(tail(c) == "update" for c in calls):
        return False
    for loop in (n for n in ast.walk(func) if isinstance(n, ast.For)):
        batch = {dotted(t) for t in ast.walk(loop.target) if isinstance(t, ast.Name)}
        for node in ast.walk(loop):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                if (
                    isinstance(target, ast.Subscript)
                    and dotted(target.value) in gathered
                    and not isinstance(target.slice, ast.Constant)
                    and {dotted(n) for n in ast.walk(target.slice) if isinstance(n, ast.Name)}
                    & batch
                ):
                    return True
    return False


def _adds(loop: ast.AST, key: str, container: str) -> bool:
    """The loop adds ``key`` to ``container`` (``append``, ``add``, or a store under it)."""
    for node in ast.walk(loop):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("append", "add")
            and ast.unparse(node.func.value) == container
            and [ast.unparse(a) for a in node.args] == [key]
        ):
            return True
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Subscript)
            and ast.unparse(t.value) == container
            and ast.unparse(t.slice) == key
            for t in node.targets
        ):
            return True
    return False


def _skips_seen(func: ast.AST) -> bool:
    """A loop that keeps each key once: it records the key in ``seen`` and skips it after.

    ``if key in seen: continue`` in a loop that then records ``key`` in
    ``seen``, or ``if key not in seen:`` whose body records it
    (receipt-validation's merge of the ranks' files: ``if tid not in seen:
    seen.add(tid); unique_results.append(item)``).
    """
    for loop in (n for n in ast.walk(func) if isinstance(n, ast.For | ast.While)):
        for node in ast.walk(loop):
            if not (
                isinstance(node, ast.If)
                and isinstance(node.test, ast.Compare)
                and len(node.test.ops) == 1
            ):
                continue
            key = ast.unparse(node.test.left)
            container = ast.unparse(node.test.comparators[0])
            op = node.test.ops[0]
            if (
                isinstance(op, ast.In)
                and isinstance(node.body[0], ast.Continue)
                and _adds(loop, key, container)
            ):
                return True
            if isinstance(op, ast.NotIn) and _adds(node, key, container):
                return True
    return False


def _functions(mod: Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [f for defs in mod.functions.values() for f in defs]


def _builds_data(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A dataset's own code (``__init__``, ``__getitem__``, ``collate_fn``): no results merged.

    Its dicts index the data (``user_items[user] = items``), whatever their keys
    are named; an evaluation keeps its results in the functions that score.
    """
    return (func.name.startswith("__") and func.name.endswith("__")) or "collate" in func.name


#: Tensor writes to the rows an index names (``features.index_copy_(0, index_all, feats)``).
_INDEXED_WRITES = frozenset({"index_copy_", "index_copy", "index_put_", "index_put"})


def _stored_by_id(scope: ast.AST) -> bool:
    """Results written to the rows of their sample ids: a repeat overwrites its own row.

    DINO's ``extract_features`` gathers each batch's dataset indices with its
    features and writes ``features.index_copy_(0, index_all, feats_all)``:
    a padded repeat lands on the row its first copy filled.
    """
    for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call)):
        if tail(call) not in _INDEXED_WRITES:
            continue
        if tail(call).startswith("index_put"):
            index = call.args[0] if call.args else None
        else:
            index = call.args[1] if len(call.args) > 1 else None
        if index is not None and _says_id(index, _SAMPLE_IDS):
            return True
    return _table_rows_by_id(scope)


#: pandas accessors that write one row of a table (``df.loc[row, col] = value``).
_ROW_WRITES = frozenset({"loc", "at", "iloc", "iat"})


def _table_rows_by_id(scope: ast.AST) -> bool:
    """Results written into a table's rows looked up by their sample ids.

    geo-guesser's rank 0 builds ``id_to_row = {sid: i ...}`` from its
    template, then writes ``submission.loc[r, col] = ...`` with ``r =
    id_to_row[int(sid)]`` for every gathered prediction: a padded repeat
    overwrites its own row.
    """
    assigns = [n for n in ast.walk(scope) if isinstance(n, ast.Assign)]
    ids = {
        name
        for a in assigns
        if _says_id(a.value, _SAMPLE_IDS)
        for t in a.targets
        if (name := dotted(t))
    }
    for node in assigns:
        for target in node.targets:
            if not (
                isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Attribute)
                and target.value.attr in _ROW_WRITES
            ):
                continue
            row = target.slice.elts[0] if isinstance(target.slice, ast.Tuple) else target.slice
            if _says_id(row, _SAMPLE_IDS) or dotted(row) in ids:
                return True
    return False


#: Words of calls that bring every rank's results together.
_GATHER_WORDS = frozenset({"gather", "allgather", "merge", "collect"})
#: ``distributed_concat(tensor, len(dataset))``: a concatenation over the ranks.
_CONCAT_WORDS = frozenset({"concat", "cat"})
_DISTRIBUTED_WORDS = frozenset({"distributed", "dist", "ddp"})


def _is_gather(call: ast.Call) -> bool:
    words = set(name_words(tail(call)))
    return bool(words & _GATHER_WORDS) or bool(words & _CONCAT_WORDS and words & _DISTRIBUTED_WORDS)


#: Words of a name that counts the evaluation set (``num_total_examples``, ``dataset_size``).
_SET_WORDS = frozenset({"examples", "samples", "dataset", "data"})
_COUNT_WORDS = frozenset({"num", "len", "length", "size", "count", "n"})


def _is_len(node: ast.AST | None) -> bool:
    """``len(dataset)``, or a name or call that counts the set (``self.num_examples(loader)``).

    transformers' old ``distributed_concat(tensor, num_total_examples)`` cuts
    the gathered tensor to ``[:num_total_examples]``. A sampler's own counts
    (``sampler.num_samples``, ``total_size``) are the padded ones: not the set's.
    """
    if isinstance(node, ast.Call) and dotted(node.func) == "len":
        return True
    named = node.func if isinstance(node, ast.Call) else node
    if not isinstance(named, ast.Name | ast.Attribute):
        return False
    words = set(name_words(dotted(named) or ""))
    return bool(words & _SET_WORDS and words & _COUNT_WORDS) and "sampler" not in words


def _cut_to_length(scope: ast.AST) -> bool:
    """Every gather of the scope's results is cut back to the evaluation set's length.

    ``merge_distributed(predicts, len(eval_data))``, or ``torch.cat(gathered)
    [:len(dataset)]`` (torchvision's and timm's gather-then-truncate): the
    repeats the padding added are dropped and every sample counts once. A
    gather left whole beside them (counters summed over the padded shares)
    keeps the repeats, so one uncut gather is enough to say no.
    """
    gathers = [n for n in ast.walk(scope) if isinstance(n, ast.Call) and _is_gather(n)]
    cuts = [
        n
        for n in ast.walk(scope)
        if isinstance(n, ast.Subscript)
        and isinstance(n.slice, ast.Slice)
        and n.slice.lower is None
        and n.slice.upper is not None
        # [:len(dataset)], or [:len(dataset) - samples_seen] on the last batch
        and any(_is_len(part) for part in ast.walk(n.slice.upper))
    ]
    return bool(gathers) and all(_cut(g, cuts, scope) for g in gathers)


def _cut(gather: ast.Call, cuts: list[ast.Subscript], scope: ast.AST) -> bool:
    """``gather`` is given the set's length, or what it returns is sliced to it."""
    if any(_is_len(a) for a in [*gather.args, *(k.value for k in gather.keywords)]):
        return True
    if any(any(n is gather for n in ast.walk(cut.value)) for cut in cuts):
        return True
    names = {
        dotted(element)
        for node in ast.walk(scope)
        if isinstance(node, ast.Assign) and any(n is gather for n in ast.walk(node.value))
        for t in node.targets
        for element in ast.walk(t)
        if isinstance(element, ast.Name | ast.Attribute)
    } - {None}
    # all_gather(outputs, tensor) fills ``outputs`` in place
    if tail(gather) in ("all_gather", "all_gather_object") and gather.args:
        names.add(dotted(gather.args[0]))
    # concat = torch.cat(outputs): the gathered list under another name
    names |= {
        dotted(t)
        for node in ast.walk(scope)
        if isinstance(node, ast.Assign)
        and any(dotted(n) in names for n in ast.walk(node.value) if isinstance(n, ast.Name))
        for t in node.targets
    }
    names.discard(None)
    # losses.append(accelerator.gather(loss)) then losses = torch.cat(losses)[: len(ds)]
    names |= {
        dotted(node.func.value)
        for node in ast.walk(scope)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in FILLING
        and any(n is gather for a in node.args for n in ast.walk(a))
    } - {None}
    return any(
        isinstance(node, ast.Name | ast.Attribute) and dotted(node) in names
        for cut in cuts
        for node in ast.walk(cut.value)
    )


def _iterated_here(mod: Module, site: ast.Call) -> bool:
    """The wrapping call is what a ``for`` of the same function iterates.

    ``for batch in tqdm(AsyncDataLoader(loader))``: the loader is read here, through
    wrappers, so this function is the evaluation.
    """
    node: ast.AST = site
    parent = mod.parents.get(node)
    while isinstance(parent, ast.Call):
        node, parent = parent, mod.parents.get(parent)
    return isinstance(parent, ast.For | ast.AsyncFor) and parent.iter is node


_WORLD_WORDS = frozenset({"world", "replicas", "nprocs", "ranks", "procs"})


def _bound_to(scope: ast.AST, name: str, test: Callable[[ast.AST], bool]) -> bool:
    """``name`` is assigned in ``scope`` a value ``test`` accepts (``W, r = ws(), rk()`` too)."""
    for node in ast.walk(scope):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if dotted(target) == name and test(node.value):
                return True
            if (
                isinstance(target, ast.Tuple)
                and isinstance(node.value, ast.Tuple)
                and len(target.elts) == len(node.value.elts)
                and any(
                    dotted(t) == name and test(v)
                    for t, v in zip(target.elts, node.value.elts, strict=True)
                )
            ):
                return True
    return False


def world_size_of(scope: ast.AST, node: ast.AST, depth: int = 2) -> bool:
    """``world_size``, ``args.num_replicas``, ``dist.get_world_size()``, or a name bound to one."""
    if isinstance(node, ast.Call):
        return tail(node) == "get_world_size"
    name = dotted(node)
    if name is None:
        return False
    if set(name_words(name.rpartition(".")[2])) & _WORLD_WORDS:
        return True
    return depth > 0 and _bound_to(
        scope, name, lambda value: world_size_of(scope, value, depth - 1)
    )


def _length(scope: ast.AST, node: ast.AST) -> bool:
    """``len(dataset)``, or a name bound to it, somewhere in ``node``."""
    for part in ast.walk(node):
        if _is_len(part):
            return True
        name = dotted(part) if isinstance(part, ast.Name | ast.Attribute) else None
        if name and _bound_to(scope, name, lambda value: any(_is_len(v) for v in ast.walk(value))):
            return True
    return False


def _counts_the_padding(scope: ast.AST) -> bool:
    """The evaluation works out how many samples the padding repeats, to take them off.

    DejaVid's ``padded = (W - N % W) % W`` with ``N = len(dataset)`` and ``W``
    the world size, then the first sample of the ranks below ``padded``
    subtracted from the sums before they are reduced: the set's length modulo
    the world size, in the function that scores.
    """
    return any(
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mod)
        and _length(scope, node.left)
        and world_size_of(scope, node.right)
        for node in ast.walk(scope)
    )


def _first_per_key(scope: ast.AST) -> bool:
    """A loop over records keeps the first of each key they carry: ``d.setdefault(r["name"], r)``.

    Viscnet's ``dedupe_records_by_name``: the records gathered from every rank,
    each with its video's file name, go into a dict by that name, a repeat
    leaving the first in place.
    """
    for loop in ast.walk(scope):
        if not (isinstance(loop, ast.For | ast.AsyncFor) and isinstance(loop.target, ast.Name)):
            continue
        record = loop.target.id
        for call in (n for n in ast.walk(loop) if isinstance(n, ast.Call)):
            if (
                tail(call) == "setdefault"
                and len(call.args) == 2
                and isinstance(call.args[1], ast.Name)
                and call.args[1].id == record
                and isinstance(call.args[0], ast.Subscript | ast.Attribute)
                and dotted(call.args[0].value) == record
            ):
                return True
    return False


def scope_deduplicates(scope: ast.AST) -> bool:
    """One of the forms of this module's docstring, in ``scope`` itself."""
    return (
        _counts_the_padding(scope)
        or _first_per_key(scope)
        or _unique_by_id(scope)
        or _one_row_per_key(scope)
        or _keyed_by_id(scope)
        or _skips_seen(scope)
        or _stored_by_id(scope)
        or _cut_to_length(scope)
        or _merged_by_key(scope)
    )


def _file_deduplicates(mod: Module) -> bool:
    """A known evaluator named, or ``unique`` by id in the file outside its datasets' code."""
    cached = mod.cache.get("deduplicates_here")
    if not isinstance(cached, bool):
        cached = bool(mod.identifiers & _DEDUPLICATING_EVALUATORS) or any(
            _unique_by_id(part) for part in _outside_the_data(mod.tree)
        )
        mod.cache["deduplicates_here"] = cached
    return cached


def _outside_the_data(tree: ast.Module) -> list[ast.AST]:
    """The file's statements, less its datasets' own code (their classes, their dunder methods).

    LatentTarget's ``CrossDockedDataset.detect_aromatic_atoms`` calls
    ``torch.unique(bond_index[...])`` to featurize a molecule: a data class's
    ``unique`` keeps atoms, not one result per evaluated sample, and says
    nothing of how the file's evaluation combines.
    """
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.ClassDef):
            bases = {
                name_words(ast.unparse(b))[-1] for b in node.bases if name_words(ast.unparse(b))
            }
            if "dataset" in bases or node.name.lower().endswith("dataset"):
                continue
            todo.extend(node.body)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _builds_data(node):
            continue
        else:
            out.append(node)
    return out


def _calls_deduplicating(mod: Module, call: ast.Call, depth: int = 2) -> bool:
    """``call`` runs a function that de-duplicates (itself, or up to ``depth`` calls below)."""
    found = defs_of(mod, call)
    if found is None:
        return False
    owner, defs = found
    if any(scope_deduplicates(d) for d in defs):
        return True
    return depth > 1 and any(
        _calls_deduplicating(owner, c, depth - 1)
        for d in defs
        for c in ast.walk(d)
        if isinstance(c, ast.Call) and c is not call
    )


def deduplicates_at(mod: Module, site: ast.Call) -> bool:
    """The evaluation around ``site`` (a call that builds the padded loader) keeps one per id.

    Where a builder's loader leaves its module, the evaluation that receives
    it is the place to look: the file of the call site (a known evaluator or
    ``unique`` by id), the function that holds the call (results kept by id
    there), and the functions it calls (up to two calls below).
    """
    if _file_deduplicates(mod):
        return True
    func = mod.function_of(site)
    if func is None:
        return False
    if scope_deduplicates(func):
        return True
    return any(
        isinstance(c, ast.Call) and c is not site and _calls_deduplicating(mod, c)
        for c in ast.walk(func)
    )


_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _after_the_loop(mod: Module, site: ast.AST) -> list[ast.stmt]:
    """The loop that reads at ``site``, and what follows it before the next loop or its scope ends.

    What a pass does with its results comes right after its loop (Viscnet's
    ``records_all = dedupe_records_by_name(gather_records_via_files(records_local,
    ...))`` after its test loop, at module level): the statements after the
    loop in its block, then after the block's own statement in the block
    around it, up to the function (or module), stopping at the next loop (a
    later pass's merge is that pass's) and at a loop around this one (the
    epoch loop: what follows it is not this pass's).
    """
    loop: ast.AST | None = site if isinstance(site, _LOOPS) else None
    if loop is None:
        loop = next((a for a in mod.ancestors(site) if isinstance(a, _LOOPS)), None)
    if loop is None:
        return []
    out: list[ast.stmt] = [loop]  # type: ignore[list-item]
    child: ast.AST = loop
    for ancestor in mod.ancestors(loop):
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            break
        for part in ("body", "orelse", "finalbody"):
            block = getattr(ancestor, part, None)
            if not (isinstance(block, list) and child in block):
                continue
            for stmt in block[block.index(child) + 1 :]:
                if any(isinstance(n, _LOOPS) for n in ast.walk(stmt)):
                    return out
                out.append(stmt)
        if isinstance(ancestor, _LOOPS):
            break
        child = ancestor
    return out


def _after_a_rebinding(mod: Module, sampler: ast.Call, site: ast.AST) -> bool:
    """``site`` follows a statement that binds the sampler's name to another sampler.

    Viscnet's script builds ``test_sampler`` (and ``test_dl`` on it) for its
    validation, then binds ``test_sampler`` again for its final test: the
    test loop, and the merge after it, read the second sampler, not the first.
    """
    scope = mod.function_of(sampler)
    if mod.function_of(site) is not scope:
        return False
    here = (getattr(site, "lineno", 0), getattr(site, "col_offset", 0))
    return any((call.lineno, call.col_offset) < here for call in rebound_later(mod, sampler))


def _top_statement(mod: Module, node: ast.AST) -> ast.AST:
    """The statement of the module's body that holds ``node`` (a script's epoch loop)."""
    chain = [node, *mod.ancestors(node)]
    return chain[-2] if len(chain) > 1 else node


def deduplicates(mod: Module, sampler: ast.Call, *, whole_file: bool = True) -> bool:
    """The evaluation fed by ``sampler`` keeps one result per sample id.

    A known evaluator, or ``unique`` by id anywhere in the file outside its
    datasets' own code, counts for the whole file. The other forms count
    where the sampler's loader goes: in the function that iterates it (or a
    function it calls, up to two calls below), in a function it is handed to
    (up to two calls below), or in a call beside that hand-over in the same
    block (``final_test(data_loader_test, ...)`` then ``merge(output_dir,
    num_tasks)``).
    A loader that goes nowhere the file shows is judged by the whole file.

    Args:
        mod: The linted file (its ``cache`` may hold the project).
        sampler: The padded sampler's call.
        whole_file: Let evidence anywhere in the file count (a known
            evaluator, ``unique`` by id, and any form where the loader goes
            nowhere the file shows). ``False`` where the evaluation that
            receives the loader is known in another module, and judged there.

    Returns:
        ``True`` when one of the forms of this module's docstring is found there.
    """
    if whole_file and _file_deduplicates(mod):
        return True
    sites = [
        site
        for site in consumer_sites(mod, carrying_names(mod, sampler))
        if not _after_a_rebinding(mod, sampler, site)
    ]
    if not sites:
        return whole_file and any(
            scope_deduplicates(f) for f in _functions(mod) if not _builds_data(f)
        )
    for site in sites:
        func = mod.function_of(site)
        iterates = not isinstance(site, ast.Call) or _iterated_here(mod, site)
        if iterates and func is not None and scope_deduplicates(func):
            return True  # the function that iterates the loader keeps results by id
        if iterates and func is None and scope_deduplicates(_top_statement(mod, site)):
            return True  # a script's loop at module level: the statement that holds it
        if iterates and any(
            isinstance(c, ast.Call) and _calls_deduplicating(mod, c)
            for stmt in _after_the_loop(mod, site)
            for c in ast.walk(stmt)
        ):
            return True  # a helper called on the loop's results keeps one per key (Viscnet's)
        beside = [c for stmt in block_of(mod, site) for c in ast.walk(stmt)]
        if any(isinstance(c, ast.Call) and _calls_deduplicating(mod, c) for c in beside):
            return True
    return _returned_to_a_deduplicating_method(mod, sampler)


def _returned_to_a_deduplicating_method(mod: Module, sampler: ast.Call) -> bool:
    """A method returns the sampler's loader, and the class's evaluation of it keeps one per id.

    The older transformers ``Trainer`` (and the copies projects keep of it):
    ``get_eval_dataloader`` returns a loader over a padding
    ``SequentialDistributedSampler``, ``evaluate`` hands it to
    ``_prediction_loop``, and there ``distributed_concat(preds,
    num_total_examples=self.num_examples(dataloader))`` cuts what is gathered
    back to the set's length. Every method of the class that calls
    ``self.<method>(...)`` is followed: the loop over the returned loader in
    it, or the method of the class it hands the loader to, must keep one
    result per sample.
    """
    func = mod.function_of(sampler)
    cls = mod.parents.get(func) if func is not None else None
    if func is None or not isinstance(cls, ast.ClassDef) or WHOLE not in returned_at(func, sampler):
        return False
    methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}
    found = False
    for method in methods.values():
        calls = [
            c
            for c in ast.walk(method)
            if isinstance(c, ast.Call)
            and isinstance(c.func, ast.Attribute)
            and dotted(c.func.value) == "self"
            and c.func.attr == func.name
        ]
        for call in calls:
            names = set(target_names(mod, call))
            if not names:
                return False  # the loader goes somewhere the reading does not follow
            for site in consumer_sites(mod, names, method):
                handed = (
                    methods.get(site.func.attr)
                    if isinstance(site, ast.Call)
                    and isinstance(site.func, ast.Attribute)
                    and dotted(site.func.value) == "self"
                    else None
                )
                scope = handed if handed is not None else method
                if not scope_deduplicates(scope):
                    return False
                found = True
    return found
