/* Dagscope's eager operators in C: `x * y` on two Tensors, with its grad_fn recorded.

   This is engine/tensor.py's `_binary_operator` for its common case, written against the
   CPython API so that a recorded op costs little more than numpy's own call: both operands
   exact Tensors of one dtype, a numpy ufunc that computes the op, and a grad_fn class whose name
   does not depend on the inputs. Every other case (a Python scalar operand, a Parameter, mixed
   dtypes, a failing ufunc) calls the Python operator, which stays the reference: this file
   changes how fast an op runs, never what it does. tests/engine/test_native_ops.py runs the
   same programs both ways and compares the values, grad_fn graphs and errors.

   Tensor and Node keep their fields in __slots__; `setup` reads each slot's offset from its
   member descriptor, so the stores below are the ones Python's `out.array = data` makes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

/* ---- what `setup` binds once --------------------------------------------------------------- */

static PyTypeObject *tensor_type;     /* engine.tensor.Tensor (exactly: subclasses take the Python path) */
static PyTypeObject *ndarray_type;
static PyObject *as_array;            /* numpy.asarray: a ufunc returns a scalar for 0-d inputs */
static PyObject *grad_mode;           /* autograd._GradMode; its `enabled` is read on each recorded op */
static PyObject *observers;           /* tensor.OP_OBSERVERS, the list the recorder appends to */
static PyObject *gradient_edge;       /* autograd.gradient_edge: a leaf's AccumulateGrad */
static PyObject *sequence;            /* autograd._seq, the itertools.count numbering nodes */
static PyObject *module_stack;        /* nn_context._stack: the nn.Module paths being run */
static PyObject *user_filename;       /* while a recorder runs, "<dagscope>" (`note_where`), else NULL */
static PyObject *str_enabled, *str_versions, *str_dtype, *zero;

/* slot offsets: Tensor.array/_requires_grad/grad_fn/_version, Node.saved/out_data/edges/seq/_line/_module */
static Py_ssize_t t_array, t_requires_grad, t_grad_fn, t_version;
static Py_ssize_t n_saved, n_out_data, n_edges, n_seq, n_line, n_module;

#define SLOT(obj, offset) (*(PyObject **)((char *)(obj) + (offset)))

static void set_slot(PyObject *obj, Py_ssize_t offset, PyObject *value)
{
    Py_INCREF(value);
    Py_XSETREF(SLOT(obj, offset), value);
}

static int slot_offset(PyObject *cls, const char *name, Py_ssize_t *offset)
{
    PyObject *descr = PyObject_GetAttrString(cls, name);
    if (descr == NULL)
        return -1;
    int ok = Py_IS_TYPE(descr, &PyMemberDescr_Type)
             && ((PyMemberDescrObject *)descr)->d_member->type == T_OBJECT_EX;
    if (ok)
        *offset = ((PyMemberDescrObject *)descr)->d_member->offset;
    Py_DECREF(descr);
    if (!ok)
        PyErr_Format(PyExc_TypeError, "%R.%s is not a __slots__ field", cls, name);
    return ok ? 0 : -1;
}

/* ---- where in the user's code a node was made ------------------------------------------------ */

/* engine/record.py's `note_where`: node._line = the line of the innermost frame running the user's
   code (None if none is), node._module = `nn_context._stack[-1] or None`. An operator implemented
   in C has no frame of its own, so the walk starts at its caller. */
static int note_where(PyObject *node)
{
    PyFrameObject *frame = PyEval_GetFrame();
    Py_XINCREF(frame);
    while (frame != NULL) {
        PyCodeObject *code = PyFrame_GetCode(frame);
        int users = code->co_filename == user_filename || PyUnicode_Compare(code->co_filename, user_filename) == 0;
        Py_DECREF(code);
        if (users)
            break;
        Py_SETREF(frame, PyFrame_GetBack(frame));
    }
    PyObject *line = Py_None;
    if (frame != NULL) {
        line = PyLong_FromLong(PyFrame_GetLineNumber(frame));
        Py_DECREF(frame);
        if (line == NULL)
            return -1;
    } else {
        Py_INCREF(line);
    }
    Py_XSETREF(SLOT(node, n_line), line);
    Py_ssize_t depth = PyList_GET_SIZE(module_stack);
    PyObject *module = depth ? PyList_GET_ITEM(module_stack, depth - 1) : Py_None;
    int named = module == Py_None ? 0 : PyObject_IsTrue(module);
    if (named < 0)
        return -1;
    set_slot(node, n_module, named ? module : Py_None);
    return 0;
}

/* ---- one binary operator ------------------------------------------------------------------- */

typedef struct {
    PyObject *name;              /* "__mul__": the method descriptor borrows its UTF-8 text */
    PyObject *python_operator;   /* the reference implementation, for every case not handled here */
    PyObject *ufunc;             /* computes the op on two arrays of one dtype */
    PyObject *node_class;        /* the grad_fn class, or NULL: a non-differentiable op */
    PyObject *op;                /* the OpDef, as observers receive it */
} BinaryOp;

#define MAX_OPERATORS 16
static BinaryOp operators[MAX_OPERATORS];
static int operator_count;

static PyObject *python_path(BinaryOp *bop, PyObject *self, PyObject *other)
{
    PyObject *args[2] = {self, other};
    return PyObject_Vectorcall(bop->python_operator, args, 2, NULL);
}

/* The node an input's gradient flows into (None when it needs none): Python's
   `(t.grad_fn or gradient_edge(t)) if t.requires_grad else None`. */
static PyObject *edge_of(PyObject *t, int requires_grad)
{
    if (!requires_grad)
        Py_RETURN_NONE;
    PyObject *grad_fn = SLOT(t, t_grad_fn);
    if (grad_fn != Py_None) {
        Py_INCREF(grad_fn);
        return grad_fn;
    }
    return PyObject_CallOneArg(gradient_edge, t);
}

/* out.grad_fn = a new node recording bop on (self, other); 0, or -1 with an exception set. */
static int record_node(BinaryOp *bop, PyObject *self, PyObject *other, PyObject *out,
                       PyObject *data, int self_grad, int other_grad)
{
    PyObject *node = PyObject_CallOneArg(bop->node_class, out);
    if (node == NULL)
        return -1;
    PyObject *saved = PyTuple_Pack(2, self, other);
    PyObject *first = saved ? edge_of(self, self_grad) : NULL;
    PyObject *second = first ? edge_of(other, other_grad) : NULL;
    PyObject *edges = second ? PyTuple_Pack(2, first, second) : NULL;
    Py_XDECREF(first);
    Py_XDECREF(second);
    PyObject *seq = edges ? PyIter_Next(sequence) : NULL;
    if (seq == NULL) {
        Py_XDECREF(saved);
        Py_XDECREF(edges);
        Py_DECREF(node);
        return -1;
    }
    Py_XSETREF(SLOT(node, n_saved), saved);
    set_slot(node, n_out_data, data);
    Py_XSETREF(SLOT(node, n_edges), edges);
    Py_XSETREF(SLOT(node, n_seq), seq);
    PyObject *v_self = SLOT(self, t_version), *v_other = SLOT(other, t_version);
    if (v_self != zero || v_other != zero) {     /* versions are kept only when one is not 0 */
        int one_changed = PyObject_IsTrue(v_self) || PyObject_IsTrue(v_other);
        PyObject *versions = one_changed ? PyTuple_Pack(2, v_self, v_other) : NULL;
        if (one_changed && (versions == NULL || PyObject_SetAttr(node, str_versions, versions) < 0)) {
            Py_XDECREF(versions);
            Py_DECREF(node);
            return -1;
        }
        Py_XDECREF(versions);
    }
    Py_XSETREF(SLOT(out, t_grad_fn), node);
    return user_filename != NULL ? note_where(node) : 0;
}

static int notify_observers(BinaryOp *bop, PyObject *self, PyObject *other, PyObject *out)
{
    PyObject *inputs = PyTuple_Pack(2, self, other);
    PyObject *attrs = inputs ? PyDict_New() : NULL;
    int status = attrs ? 0 : -1;
    for (Py_ssize_t i = 0; status == 0 && i < PyList_GET_SIZE(observers); i++) {
        PyObject *observer = PyList_GET_ITEM(observers, i);
        Py_INCREF(observer);                  /* an observer may remove itself from the list */
        PyObject *args[4] = {bop->op, inputs, attrs, out};
        PyObject *result = PyObject_Vectorcall(observer, args, 4, NULL);
        Py_DECREF(observer);
        status = result ? 0 : -1;
        Py_XDECREF(result);
    }
    Py_XDECREF(inputs);
    Py_XDECREF(attrs);
    return status;
}

/* The dtype test `x.dtype is y.dtype`; -1 with an exception set. */
static int same_dtype(PyObject *x, PyObject *y)
{
    PyObject *dx = PyObject_GetAttr(x, str_dtype);
    PyObject *dy = dx ? PyObject_GetAttr(y, str_dtype) : NULL;
    int same = dy ? dx == dy : -1;
    Py_XDECREF(dx);
    Py_XDECREF(dy);
    return same;
}

static PyObject *binary(BinaryOp *bop, PyObject *self, PyObject *other)
{
    if (Py_TYPE(self) != tensor_type || Py_TYPE(other) != tensor_type)
        return python_path(bop, self, other);
    PyObject *x = SLOT(self, t_array), *y = SLOT(other, t_array);
    PyObject *rx = SLOT(self, t_requires_grad), *ry = SLOT(other, t_requires_grad);
    if (x == NULL || y == NULL || rx == NULL || ry == NULL || SLOT(self, t_grad_fn) == NULL
            || SLOT(other, t_grad_fn) == NULL || SLOT(self, t_version) == NULL || SLOT(other, t_version) == NULL)
        return python_path(bop, self, other);       /* a half-built tensor: Python raises the error */
    int same = same_dtype(x, y);
    if (same <= 0) {
        if (same < 0)
            PyErr_Clear();
        return python_path(bop, self, other);
    }
    PyObject *args[2] = {x, y};
    Py_INCREF(x);                /* held for the call: the slots' references are borrowed */
    Py_INCREF(y);
    PyObject *data = PyObject_Vectorcall(bop->ufunc, args, 2, NULL);
    Py_DECREF(x);
    Py_DECREF(y);
    if (data == NULL) {
        /* A broadcast error, say: the Python operator runs the op again and raises PyTorch's words.
           KeyboardInterrupt and the like are not Exceptions and pass through untouched. */
        if (!PyErr_ExceptionMatches(PyExc_Exception))
            return NULL;
        PyErr_Clear();
        return python_path(bop, self, other);
    }
    if (!Py_IS_TYPE(data, ndarray_type))
        Py_SETREF(data, PyObject_CallOneArg(as_array, data));
    if (data == NULL)
        return NULL;

    PyObject *out = tensor_type->tp_alloc(tensor_type, 0);
    if (out == NULL) {
        Py_DECREF(data);
        return NULL;
    }
    SLOT(out, t_array) = data;                    /* the reference moves into the slot */
    set_slot(out, t_version, zero);
    set_slot(out, t_requires_grad, Py_False);
    set_slot(out, t_grad_fn, Py_None);

    rx = SLOT(self, t_requires_grad);            /* read again: the ufunc call ran code */
    ry = SLOT(other, t_requires_grad);
    int self_grad = rx ? PyObject_IsTrue(rx) : 0, other_grad = ry ? PyObject_IsTrue(ry) : 0;
    if (self_grad < 0 || other_grad < 0) {
        Py_DECREF(out);
        return NULL;
    }
    if ((self_grad || other_grad) && bop->node_class != NULL) {
        PyObject *enabled = PyObject_GetAttr(grad_mode, str_enabled);
        int recording = enabled ? PyObject_IsTrue(enabled) : -1;
        Py_XDECREF(enabled);
        if (recording > 0) {
            set_slot(out, t_requires_grad, Py_True);
            recording = record_node(bop, self, other, out, data, self_grad, other_grad);
        }
        if (recording < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    if (PyList_GET_SIZE(observers) > 0 && notify_observers(bop, self, other, out) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* CPython calls a method descriptor's C function with no per-descriptor data, so each operator
   slot gets its own small function that knows its index. */
#define OPERATOR_FUNCTION(i) \
    static PyObject *operator_##i(PyObject *self, PyObject *const *args, Py_ssize_t nargs) \
    { \
        if (nargs != 1) { \
            PyErr_Format(PyExc_TypeError, "expected 1 argument, got %zd", nargs); \
            return NULL; \
        } \
        return binary(&operators[i], self, args[0]); \
    }
OPERATOR_FUNCTION(0) OPERATOR_FUNCTION(1) OPERATOR_FUNCTION(2) OPERATOR_FUNCTION(3)
OPERATOR_FUNCTION(4) OPERATOR_FUNCTION(5) OPERATOR_FUNCTION(6) OPERATOR_FUNCTION(7)
OPERATOR_FUNCTION(8) OPERATOR_FUNCTION(9) OPERATOR_FUNCTION(10) OPERATOR_FUNCTION(11)
OPERATOR_FUNCTION(12) OPERATOR_FUNCTION(13) OPERATOR_FUNCTION(14) OPERATOR_FUNCTION(15)

typedef PyObject *(*FastFunction)(PyObject *, PyObject *const *, Py_ssize_t);
static const FastFunction operator_functions[MAX_OPERATORS] = {
    operator_0, operator_1, operator_2, operator_3, operator_4, operator_5, operator_6, operator_7,
    operator_8, operator_9, operator_10, operator_11, operator_12, operator_13, operator_14, operator_15,
};
static PyMethodDef operator_defs[MAX_OPERATORS];

/* ---- Tensor.requires_grad: read as a slot, assigned through PyTorch's checks ------------------- */

/* A data descriptor over one Tensor slot: reading it costs what reading the slot does (the Python
   property it replaces costs a function call, on a flag every op reads); assigning calls
   `check(tensor, value)`, whose result is stored, so the rules stay in Python (tensor.py). */
typedef struct {
    PyObject_HEAD
    Py_ssize_t offset;
    PyObject *name;
    PyObject *check;
} CheckedSlot;

static PyObject *checked_slot_get(PyObject *self, PyObject *obj, PyObject *type)
{
    CheckedSlot *slot = (CheckedSlot *)self;
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    if (!PyObject_TypeCheck(obj, tensor_type))
        return PyErr_Format(PyExc_TypeError, "descriptor %R needs a Tensor, not %.100s", slot->name,
                            Py_TYPE(obj)->tp_name);
    PyObject *value = SLOT(obj, slot->offset);
    if (value == NULL)
        return PyErr_Format(PyExc_AttributeError, "'Tensor' object has no attribute %R", slot->name);
    return Py_NewRef(value);
}

static int checked_slot_set(PyObject *self, PyObject *obj, PyObject *value)
{
    CheckedSlot *slot = (CheckedSlot *)self;
    if (!PyObject_TypeCheck(obj, tensor_type)) {
        PyErr_Format(PyExc_TypeError, "descriptor %R needs a Tensor, not %.100s", slot->name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    /* `del t.requires_grad` is checked as the assignment of None (PyTorch: "must be a bool") */
    PyObject *checked = PyObject_CallFunctionObjArgs(slot->check, obj, value ? value : Py_None, NULL);
    if (checked == NULL)
        return -1;
    Py_XSETREF(SLOT(obj, slot->offset), checked);
    return 0;
}

static void checked_slot_dealloc(PyObject *self)
{
    CheckedSlot *slot = (CheckedSlot *)self;
    Py_XDECREF(slot->name);
    Py_XDECREF(slot->check);
    Py_TYPE(self)->tp_free(self);
}

static PyTypeObject CheckedSlotType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "dagscope_fastops.CheckedSlot",
    .tp_basicsize = sizeof(CheckedSlot),
    .tp_dealloc = checked_slot_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A Tensor slot read directly and assigned through a check (engine/native/fastops.c).",
    .tp_descr_get = checked_slot_get,
    .tp_descr_set = checked_slot_set,
};

static PyObject *checked_slot(PyObject *module, PyObject *args)
{
    PyObject *name, *slot_name, *check;
    if (!PyArg_ParseTuple(args, "UUO:checked_slot", &name, &slot_name, &check))
        return NULL;
    if (tensor_type == NULL)
        return PyErr_Format(PyExc_RuntimeError, "setup() must run before checked_slot()");
    if (!PyCallable_Check(check))
        return PyErr_Format(PyExc_TypeError, "the check must be callable, not %R", check);
    Py_ssize_t offset;
    if (slot_offset((PyObject *)tensor_type, PyUnicode_AsUTF8(slot_name), &offset) < 0)
        return NULL;
    CheckedSlot *slot = PyObject_New(CheckedSlot, &CheckedSlotType);
    if (slot == NULL)
        return NULL;
    slot->offset = offset;
    slot->name = Py_NewRef(name);
    slot->check = Py_NewRef(check);
    return (PyObject *)slot;
}

/* ---- the module ----------------------------------------------------------------------------- */

static PyObject *setup(PyObject *module, PyObject *args)
{
    PyObject *tensor, *node, *ndarray, *asarray, *mode, *obs, *edge, *seq, *modules;
    if (!PyArg_ParseTuple(args, "O!O!O!OOO!OOO!:setup", &PyType_Type, &tensor, &PyType_Type, &node,
                          &PyType_Type, &ndarray, &asarray, &mode, &PyList_Type, &obs, &edge, &seq,
                          &PyList_Type, &modules))
        return NULL;
    if (slot_offset(tensor, "array", &t_array) < 0 || slot_offset(tensor, "_requires_grad", &t_requires_grad) < 0
            || slot_offset(tensor, "grad_fn", &t_grad_fn) < 0 || slot_offset(tensor, "_version", &t_version) < 0
            || slot_offset(node, "saved", &n_saved) < 0 || slot_offset(node, "out_data", &n_out_data) < 0
            || slot_offset(node, "edges", &n_edges) < 0 || slot_offset(node, "seq", &n_seq) < 0
            || slot_offset(node, "_line", &n_line) < 0 || slot_offset(node, "_module", &n_module) < 0)
        return NULL;
    if (!PyIter_Check(seq))
        return PyErr_Format(PyExc_TypeError, "the node sequence must be an iterator, not %R", seq);
    Py_INCREF(tensor); Py_XSETREF(tensor_type, (PyTypeObject *)tensor);
    Py_INCREF(ndarray); Py_XSETREF(ndarray_type, (PyTypeObject *)ndarray);
    Py_INCREF(asarray); Py_XSETREF(as_array, asarray);
    Py_INCREF(mode); Py_XSETREF(grad_mode, mode);
    Py_INCREF(obs); Py_XSETREF(observers, obs);
    Py_INCREF(edge); Py_XSETREF(gradient_edge, edge);
    Py_INCREF(seq); Py_XSETREF(sequence, seq);
    Py_INCREF(modules); Py_XSETREF(module_stack, modules);
    Py_RETURN_NONE;
}

static PyObject *set_note_where(PyObject *module, PyObject *filename)
{
    if (filename != Py_None && !PyUnicode_Check(filename))
        return PyErr_Format(PyExc_TypeError, "note_where takes a file name or None, not %R", filename);
    PyObject *value = filename == Py_None ? NULL : filename;
    Py_XINCREF(value);
    Py_XSETREF(user_filename, value);
    Py_RETURN_NONE;
}

static PyObject *binary_operator(PyObject *module, PyObject *args)
{
    PyObject *name, *python_operator, *ufunc, *node_class, *op;
    if (!PyArg_ParseTuple(args, "UOOOO:binary_operator", &name, &python_operator, &ufunc, &node_class, &op))
        return NULL;
    if (tensor_type == NULL)
        return PyErr_Format(PyExc_RuntimeError, "setup() must run before binary_operator()");
    int i = 0;                         /* a name seen before takes its old slot back */
    while (i < operator_count && PyUnicode_Compare(operators[i].name, name) != 0)
        i++;
    if (i == MAX_OPERATORS)
        return PyErr_Format(PyExc_RuntimeError, "more than %d native operators", MAX_OPERATORS);
    PyMethodDef *def = &operator_defs[i];
    def->ml_name = PyUnicode_AsUTF8(name);    /* valid while `name` lives: operators[i] keeps it */
    def->ml_meth = (PyCFunction)(void (*)(void))operator_functions[i];
    def->ml_flags = METH_FASTCALL;
    def->ml_doc = "Tensor operator, run natively (engine/native/fastops.c).";
    PyObject *descriptor = def->ml_name ? PyDescr_NewMethod(tensor_type, def) : NULL;
    if (descriptor == NULL)
        return NULL;
    BinaryOp *bop = &operators[i];
    Py_INCREF(name); Py_XSETREF(bop->name, name);
    Py_INCREF(python_operator); Py_XSETREF(bop->python_operator, python_operator);
    Py_INCREF(ufunc); Py_XSETREF(bop->ufunc, ufunc);
    PyObject *grad_fn_class = node_class == Py_None ? NULL : node_class;
    Py_XINCREF(grad_fn_class); Py_XSETREF(bop->node_class, grad_fn_class);
    Py_INCREF(op); Py_XSETREF(bop->op, op);
    if (i == operator_count)
        operator_count++;
    return descriptor;
}

static PyMethodDef module_methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(Tensor, Node, ndarray, asarray, GradMode, observers, gradient_edge, seq, module_stack): "
     "bind the engine's pieces."},
    {"checked_slot", checked_slot, METH_VARARGS,
     "checked_slot(name, slot_name, check) -> a descriptor reading Tensor.<slot_name>, assigning check(t, v)."},
    {"note_where", set_note_where, METH_O,
     "note_where(user_filename or None): while set, each new node notes its user line and module."},
    {"binary_operator", binary_operator, METH_VARARGS,
     "binary_operator(dunder, python_operator, ufunc, node_class_or_None, op) -> a Tensor method."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "dagscope_fastops", "Dagscope's eager operators in C.", -1, module_methods,
};

PyMODINIT_FUNC PyInit_dagscope_fastops(void)
{
    str_enabled = PyUnicode_InternFromString("enabled");
    str_versions = PyUnicode_InternFromString("versions");
    str_dtype = PyUnicode_InternFromString("dtype");
    zero = PyLong_FromLong(0);
    if (str_enabled == NULL || str_versions == NULL || str_dtype == NULL || zero == NULL
            || PyType_Ready(&CheckedSlotType) < 0)
        return NULL;
    return PyModule_Create(&module_def);
}
