/* Dagscope's eager operators in C: `x * y` and `x.tanh()` on Tensors, with their grad_fn recorded.

   These are engine/tensor.py's `_python_binary_operator` and its one-input methods (`apply(name,
   x)`) for their common case, written against the CPython API so that a recorded op costs little
   more than numpy's own call: exact Tensors (of one dtype, for a binary op's ufunc) and a grad_fn
   class whose name does not depend on the inputs. Every other case (a Python scalar operand, a
   Parameter, mixed dtypes, an op that raises) calls the Python operator, which stays the
   reference: this file changes how fast an op runs, never what it does.
   tests/engine/native/test_native_ops.py runs the same programs both ways and compares the values,
   grad_fn graphs and errors.

   Tensor and Node keep their fields in __slots__; `setup` reads each slot's offset from its
   member descriptor, so the stores below are the ones Python's `out.array = data` makes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>
#include <stdint.h>

/* ---- what `setup` binds once --------------------------------------------------------------- */

static PyTypeObject *tensor_type;     /* engine.tensor.Tensor (exactly: subclasses take the Python path) */
static PyTypeObject *ndarray_type;
static PyObject *as_array;            /* numpy.asarray: a ufunc returns a scalar for 0-d inputs */
static PyObject *grad_mode;           /* autograd._GradMode; its `enabled` is read on each recorded op */
static PyObject *observers;           /* hooks.OP_APPLIED, the list captures and the tape append to */
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

/* ---- the operators ---------------------------------------------------------------------------- */

typedef struct {
    PyObject *name;              /* "__mul__": the method descriptor borrows its UTF-8 text */
    PyObject *python_operator;   /* the reference implementation, for every case not handled here */
    PyObject *compute;           /* binary: the ufunc for two arrays of one dtype; unary: the op's forward */
    PyObject *node_class;        /* the grad_fn class, or NULL: a non-differentiable op */
    PyObject *op;                /* the OpDef, as observers receive it */
} Operator;

#define MAX_OPERATORS 16
static Operator binary_ops[MAX_OPERATORS], unary_ops[MAX_OPERATORS];
static int binary_count, unary_count;

static PyObject *python_path(Operator *oper, PyObject *const *inputs, Py_ssize_t n)
{
    return PyObject_Vectorcall(oper->python_operator, inputs, n, NULL);
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

/* out.grad_fn = a new node recording oper on the n inputs (autograd.record_node); 0, or -1 with an
   exception set. */
static int record_node(Operator *oper, PyObject *const *inputs, const int *grads, Py_ssize_t n,
                       PyObject *out, PyObject *data)
{
    PyObject *node = PyObject_CallOneArg(oper->node_class, out);
    if (node == NULL)
        return -1;
    PyObject *saved = PyTuple_New(n), *edges = PyTuple_New(n), *seq = NULL;
    int changed = 0;
    for (Py_ssize_t i = 0; saved != NULL && edges != NULL && i < n; i++) {
        PyObject *edge = edge_of(inputs[i], grads[i]);
        if (edge == NULL) {
            Py_CLEAR(edges);
            break;
        }
        Py_INCREF(inputs[i]);
        PyTuple_SET_ITEM(saved, i, inputs[i]);
        PyTuple_SET_ITEM(edges, i, edge);
        PyObject *version = SLOT(inputs[i], t_version);
        changed = changed || (version != zero && PyObject_IsTrue(version));
    }
    if (saved != NULL && edges != NULL)
        seq = PyIter_Next(sequence);
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
    if (changed) {                                /* versions are kept only when one is not 0 */
        PyObject *versions = PyTuple_New(n);
        for (Py_ssize_t i = 0; versions != NULL && i < n; i++) {
            PyObject *version = SLOT(inputs[i], t_version);
            Py_INCREF(version);
            PyTuple_SET_ITEM(versions, i, version);
        }
        if (versions == NULL || PyObject_SetAttr(node, str_versions, versions) < 0) {
            Py_XDECREF(versions);
            Py_DECREF(node);
            return -1;
        }
        Py_DECREF(versions);
    }
    Py_XSETREF(SLOT(out, t_grad_fn), node);
    return user_filename != NULL ? note_where(node) : 0;
}

static int notify_observers(Operator *oper, PyObject *const *inputs, Py_ssize_t n, PyObject *out)
{
    PyObject *tensors = PyTuple_New(n);
    for (Py_ssize_t i = 0; tensors != NULL && i < n; i++) {
        Py_INCREF(inputs[i]);
        PyTuple_SET_ITEM(tensors, i, inputs[i]);
    }
    PyObject *attrs = tensors ? PyDict_New() : NULL;
    int status = attrs ? 0 : -1;
    for (Py_ssize_t i = 0; status == 0 && i < PyList_GET_SIZE(observers); i++) {
        PyObject *observer = PyList_GET_ITEM(observers, i);
        Py_INCREF(observer);                  /* an observer may remove itself from the list */
        PyObject *args[4] = {oper->op, tensors, attrs, out};
        PyObject *result = PyObject_Vectorcall(observer, args, 4, NULL);
        Py_DECREF(observer);
        status = result ? 0 : -1;
        Py_XDECREF(result);
    }
    Py_XDECREF(tensors);
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

/* Whether t's fields are all set (a half-built tensor takes the Python path, which raises). */
static int complete(PyObject *t)
{
    return SLOT(t, t_array) && SLOT(t, t_requires_grad) && SLOT(t, t_grad_fn) && SLOT(t, t_version);
}

/* The op's result computed from `args` by `compute`, or NULL: with an exception set when it is not
   an Exception (KeyboardInterrupt...), else cleared, for the Python operator to run the op again and
   raise PyTorch's words (a broadcast error, say). */
static PyObject *computed(PyObject *compute, PyObject *const *args, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)       /* held for the call: the slots' references are borrowed */
        Py_INCREF(args[i]);
    PyObject *data = PyObject_Vectorcall(compute, args, n, NULL);
    for (Py_ssize_t i = 0; i < n; i++)
        Py_DECREF(args[i]);
    if (data == NULL) {
        if (PyErr_ExceptionMatches(PyExc_Exception))
            PyErr_Clear();
        return NULL;
    }
    if (!Py_IS_TYPE(data, ndarray_type))     /* numpy returns a scalar for 0-d inputs */
        Py_SETREF(data, PyObject_CallOneArg(as_array, data));
    return data;
}

/* The op's output for `data` (whose reference it takes), recorded when an input requires grad. */
static PyObject *finish(Operator *oper, PyObject *const *inputs, Py_ssize_t n, PyObject *data)
{
    PyObject *out = tensor_type->tp_alloc(tensor_type, 0);
    if (out == NULL) {
        Py_DECREF(data);
        return NULL;
    }
    SLOT(out, t_array) = data;                    /* the reference moves into the slot */
    set_slot(out, t_version, zero);
    set_slot(out, t_requires_grad, Py_False);
    set_slot(out, t_grad_fn, Py_None);

    int grads[2] = {0, 0}, any = 0;
    for (Py_ssize_t i = 0; i < n; i++) {         /* read now: computing the op ran code */
        PyObject *flag = SLOT(inputs[i], t_requires_grad);
        grads[i] = flag ? PyObject_IsTrue(flag) : 0;
        if (grads[i] < 0) {
            Py_DECREF(out);
            return NULL;
        }
        any |= grads[i];
    }
    if (any && oper->node_class != NULL) {
        PyObject *enabled = PyObject_GetAttr(grad_mode, str_enabled);
        int recording = enabled ? PyObject_IsTrue(enabled) : -1;
        Py_XDECREF(enabled);
        if (recording > 0) {
            set_slot(out, t_requires_grad, Py_True);
            recording = record_node(oper, inputs, grads, n, out, data);
        }
        if (recording < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    if (PyList_GET_SIZE(observers) > 0 && notify_observers(oper, inputs, n, out) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* x <op> y: the ufunc when both are Tensors of one dtype (tensor.py's _python_binary_operator). */
static PyObject *binary(Operator *oper, PyObject *self, PyObject *other)
{
    PyObject *inputs[2] = {self, other};
    if (Py_TYPE(self) != tensor_type || Py_TYPE(other) != tensor_type || !complete(self) || !complete(other))
        return python_path(oper, inputs, 2);
    PyObject *arrays[2] = {SLOT(self, t_array), SLOT(other, t_array)};
    int same = same_dtype(arrays[0], arrays[1]);
    if (same <= 0) {
        if (same < 0)
            PyErr_Clear();
        return python_path(oper, inputs, 2);
    }
    PyObject *data = computed(oper->compute, arrays, 2);
    if (data == NULL)
        return PyErr_Occurred() ? NULL : python_path(oper, inputs, 2);
    return finish(oper, inputs, 2, data);
}

/* x.tanh() and the like: the op's forward on the array (what `apply(name, x)` runs). */
static PyObject *unary(Operator *oper, PyObject *self)
{
    if (Py_TYPE(self) != tensor_type || !complete(self))
        return python_path(oper, &self, 1);
    PyObject *array = SLOT(self, t_array);
    PyObject *data = computed(oper->compute, &array, 1);
    if (data == NULL)
        return PyErr_Occurred() ? NULL : python_path(oper, &self, 1);
    return finish(oper, &self, 1, data);
}

/* CPython calls a method descriptor's C function with no per-descriptor data, so each operator
   slot gets its own small function that knows its index. */
#define OPERATOR_FUNCTIONS(i) \
    static PyObject *binary_##i(PyObject *self, PyObject *const *args, Py_ssize_t nargs) \
    { \
        if (nargs != 1) { \
            PyErr_Format(PyExc_TypeError, "expected 1 argument, got %zd", nargs); \
            return NULL; \
        } \
        return binary(&binary_ops[i], self, args[0]); \
    } \
    static PyObject *unary_##i(PyObject *self, PyObject *unused) \
    { \
        (void)unused; \
        return unary(&unary_ops[i], self); \
    }
OPERATOR_FUNCTIONS(0) OPERATOR_FUNCTIONS(1) OPERATOR_FUNCTIONS(2) OPERATOR_FUNCTIONS(3)
OPERATOR_FUNCTIONS(4) OPERATOR_FUNCTIONS(5) OPERATOR_FUNCTIONS(6) OPERATOR_FUNCTIONS(7)
OPERATOR_FUNCTIONS(8) OPERATOR_FUNCTIONS(9) OPERATOR_FUNCTIONS(10) OPERATOR_FUNCTIONS(11)
OPERATOR_FUNCTIONS(12) OPERATOR_FUNCTIONS(13) OPERATOR_FUNCTIONS(14) OPERATOR_FUNCTIONS(15)

static const PyCFunction binary_functions[MAX_OPERATORS] = {
#define B(i) (PyCFunction)(void (*)(void))binary_##i
    B(0), B(1), B(2), B(3), B(4), B(5), B(6), B(7), B(8), B(9), B(10), B(11), B(12), B(13), B(14), B(15),
#undef B
};
static const PyCFunction unary_functions[MAX_OPERATORS] = {
    unary_0, unary_1, unary_2, unary_3, unary_4, unary_5, unary_6, unary_7,
    unary_8, unary_9, unary_10, unary_11, unary_12, unary_13, unary_14, unary_15,
};
static PyMethodDef binary_defs[MAX_OPERATORS], unary_defs[MAX_OPERATORS];

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

/* ---- PyTorch's CPU random numbers: engine/random_pytorch.py's hot loops ----------------------

   The draws come from numpy's own MT19937 (the generator's state stays in it: get_state, set_state
   and the numpy path see one stream), called through its public C interface, numpy/random/bitgen.h's
   bitgen_t, which the bit generator hands out as the capsule `.capsule`. Each loop is the numpy
   path's arithmetic in the same order and precision, so the values are the same bits
   (tests/engine/native/test_native_random.py): no fused multiply-add (FLAGS: -ffp-contract=off),
   libm's log/sin/cos/sqrt, which numpy's float64 loops call on this machine (random_pytorch.py
   compares the two on a probe before it uses this path). */

typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);     /* MT19937: one 32-bit draw, what random_raw returns */
} bitgen_t;

static bitgen_t *bit_generator(PyObject *capsule)
{
    return (bitgen_t *)PyCapsule_GetPointer(capsule, "BitGenerator");
}

/* _unit: 24 random bits as a float in [0, 1) ... */
static inline float unit24(bitgen_t *bg)
{
    return (float)(bg->next_uint32(bg->state) & 0xFFFFFFu) * 0x1p-24f;
}

/* ... and 53 of a 64-bit draw (make64BitsFrom32Bits(hi, lo)) as a double */
static inline double unit53(bitgen_t *bg)
{
    uint64_t hi = bg->next_uint32(bg->state);
    uint64_t lo = bg->next_uint32(bg->state);
    return (double)(((hi << 32) | lo) & ((UINT64_C(1) << 53) - 1)) * 0x1p-53;
}

/* A C-contiguous buffer of `out` that can be written, with items of `itemsize` bytes (0: 4 or 8,
   a float32 or float64 array); -1 with an exception set. */
static int float_buffer(PyObject *array, Py_buffer *view, int writable, Py_ssize_t itemsize, const char *what)
{
    if (PyObject_GetBuffer(array, view, (writable ? PyBUF_WRITABLE : 0) | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    char kind = view->format ? view->format[view->format[0] == '=' || view->format[0] == '<' ? 1 : 0] : 0;
    int ok = itemsize ? view->itemsize == itemsize : ((kind == 'f' && view->itemsize == 4) || (kind == 'd' && view->itemsize == 8));
    if (!ok) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "%s: expected a C-contiguous float32 or float64 array", what);
        return -1;
    }
    return 0;
}

/* Generator.uniform: x * (high - low) + low from 24-bit float32 or 53-bit float64 units, the
   multiply-add rounded once (float32 computed in double, float64 in long double, as the numpy path
   emulates PyTorch's fused kernel). low and high arrive already rounded to the array's dtype. */
static PyObject *mt_uniform(PyObject *module, PyObject *args)
{
    PyObject *capsule, *out;
    double low, high;
    if (!PyArg_ParseTuple(args, "OOdd:mt_uniform", &capsule, &out, &low, &high))
        return NULL;
    bitgen_t *bg = bit_generator(capsule);
    Py_buffer view;
    if (bg == NULL || float_buffer(out, &view, 1, 0, "mt_uniform") < 0)
        return NULL;
    Py_ssize_t n = view.len / view.itemsize;
    if (view.itemsize == 8) {
        long double span = (long double)(high - low), base = low;
        double *o = view.buf;
        for (Py_ssize_t i = 0; i < n; i++)
            o[i] = (double)((long double)unit53(bg) * span + base);
    } else {
        float lo = (float)low, hi = (float)high;
        double span = (double)(hi - lo), base = lo;
        float *o = view.buf;
        for (Py_ssize_t i = 0; i < n; i++)
            o[i] = (float)((double)unit24(bg) * span + base);
    }
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* normal_fill_16: 16 uniforms become 8 cosines and 8 sines of a Box-Muller transform. */
static void box_muller_16(double *u)
{
    static const double two_pi = 0x1.921fb54442d18p+2;       /* 2.0 * np.pi, as the numpy path rounds it */
    for (int j = 0; j < 8; j++) {
        double radius = sqrt(-2.0 * log(1.0 - u[j]));
        double theta = two_pi * u[8 + j];
        u[j] = radius * cos(theta);
        u[8 + j] = radius * sin(theta);
    }
}

/* 16 draws made normal, v * scale + loc in double, written at out[start:start + 16] in its dtype. */
static void normal_block(bitgen_t *bg, void *out, Py_ssize_t start, int wide, double loc, double scale)
{
    double block[16];
    for (int j = 0; j < 16; j++)
        block[j] = wide ? unit53(bg) : (double)unit24(bg);
    box_muller_16(block);
    for (int j = 0; j < 16; j++) {
        if (wide)
            ((double *)out)[start + j] = block[j] * scale + loc;
        else
            ((float *)out)[start + j] = (float)(block[j] * scale + loc);
    }
}

/* ---- the float32 normal, four lanes at a time, with libm's bits --------------------------------

   libm's log and sincos cost most of a float32 normal. The value stored is (float)v, v the double
   r cos(theta) scale + loc; so v' computed with faster approximations (fdlibm's log and sin/cos
   kernels in AVX2, each within a few ulp of the exact value, as libm is) gives the same float
   whenever every double within tol of v' rounds to one float: |v' - v| stays below 2^-49 (|r scale|
   + |v|) (a few ulp through log, sqrt, sincos and the products), and tol is 2^-40 of that bound.
   A block with any value nearer a rounding boundary (about 1 in 100 blocks) is computed again with
   libm (normal_block), so the result is libm's, bit for bit, either way. */

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define SIMD_NORMAL 1
#define AVX2 __attribute__((target("avx2,fma")))

static int have_avx2;

/* log(x) for x in (0, 1] (no zeros, subnormals, infinities or NaNs: 1 - u with u a unit): fdlibm's
   e_log.c, x = 2^k m with m in [sqrt(2)/2, sqrt(2)), log(m) = f - (f^2/2 - s (f^2/2 + R(s^2))). */
AVX2 static inline __m256d log4(__m256d x)
{
    __m256i bits = _mm256_castpd_si256(x);
    __m256i exponent = _mm256_srli_epi64(bits, 52);
    __m256d m = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi64x(0x000FFFFFFFFFFFFFLL)),
                                                    _mm256_set1_epi64x(0x3FF0000000000000LL)));
    __m256d big = _mm256_cmp_pd(m, _mm256_set1_pd(1.4142135623730951), _CMP_GT_OQ);
    m = _mm256_blendv_pd(m, _mm256_mul_pd(m, _mm256_set1_pd(0.5)), big);
    /* k = exponent - 1023 (+ 1 where m was halved), as a double: 2^52 + exponent, minus 2^52 + 1023 */
    __m256d k = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(exponent, _mm256_set1_epi64x(0x4330000000000000LL))),
                              _mm256_set1_pd(4503599627370496.0 + 1023.0));
    k = _mm256_add_pd(k, _mm256_and_pd(big, _mm256_set1_pd(1.0)));
    __m256d f = _mm256_sub_pd(m, _mm256_set1_pd(1.0));
    __m256d s = _mm256_div_pd(f, _mm256_add_pd(_mm256_set1_pd(2.0), f));
    __m256d z = _mm256_mul_pd(s, s), w = _mm256_mul_pd(z, z);
    __m256d t1 = _mm256_fmadd_pd(w, _mm256_set1_pd(1.531383769920937332e-01), _mm256_set1_pd(2.222219843214978396e-01));
    t1 = _mm256_mul_pd(w, _mm256_fmadd_pd(w, t1, _mm256_set1_pd(3.999999999940941908e-01)));
    __m256d t2 = _mm256_fmadd_pd(w, _mm256_set1_pd(1.479819860511658591e-01), _mm256_set1_pd(1.818357216161805012e-01));
    t2 = _mm256_fmadd_pd(w, t2, _mm256_set1_pd(2.857142874366239149e-01));
    t2 = _mm256_mul_pd(z, _mm256_fmadd_pd(w, t2, _mm256_set1_pd(6.666666666666735130e-01)));
    __m256d R = _mm256_add_pd(t1, t2);
    __m256d hfsq = _mm256_mul_pd(_mm256_set1_pd(0.5), _mm256_mul_pd(f, f));
    __m256d inner = _mm256_fmadd_pd(s, _mm256_add_pd(hfsq, R), _mm256_mul_pd(k, _mm256_set1_pd(1.90821492927058770002e-10)));
    return _mm256_fmsub_pd(k, _mm256_set1_pd(6.93147180369123816490e-01), _mm256_sub_pd(_mm256_sub_pd(hfsq, inner), f));
}

/* sin and cos of theta in [0, 2 pi): theta - n pi/2 (n = 0..4, pi/2 in two parts) into [-pi/4, pi/4],
   fdlibm's k_sin.c / k_cos.c polynomials there, then swapped and signed by the quadrant. */
AVX2 static inline void sincos4(__m256d theta, __m256d *sine, __m256d *cosine)
{
    __m256d n = _mm256_round_pd(_mm256_mul_pd(theta, _mm256_set1_pd(6.36619772367581382433e-01)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256d y = _mm256_fnmadd_pd(n, _mm256_set1_pd(1.57079632673412561417e+00), theta);
    y = _mm256_fnmadd_pd(n, _mm256_set1_pd(6.07710050650619224932e-11), y);
    __m256d z = _mm256_mul_pd(y, y);
    __m256d ps = _mm256_fmadd_pd(z, _mm256_set1_pd(1.58969099521155010221e-10), _mm256_set1_pd(-2.50507602534068634195e-08));
    ps = _mm256_fmadd_pd(z, ps, _mm256_set1_pd(2.75573137070700676789e-06));
    ps = _mm256_fmadd_pd(z, ps, _mm256_set1_pd(-1.98412698298579493134e-04));
    ps = _mm256_fmadd_pd(z, ps, _mm256_set1_pd(8.33333333332248946124e-03));
    ps = _mm256_fmadd_pd(z, ps, _mm256_set1_pd(-1.66666666666666324348e-01));
    __m256d s = _mm256_fmadd_pd(_mm256_mul_pd(y, z), ps, y);
    __m256d pc = _mm256_fmadd_pd(z, _mm256_set1_pd(-1.13596475577881948265e-11), _mm256_set1_pd(2.08757232129817482790e-09));
    pc = _mm256_fmadd_pd(z, pc, _mm256_set1_pd(-2.75573143513906633035e-07));
    pc = _mm256_fmadd_pd(z, pc, _mm256_set1_pd(2.48015872894767294178e-05));
    pc = _mm256_fmadd_pd(z, pc, _mm256_set1_pd(-1.38888888888741095749e-03));
    pc = _mm256_fmadd_pd(z, pc, _mm256_set1_pd(4.16666666666666019037e-02));
    __m256d c = _mm256_fmadd_pd(_mm256_mul_pd(z, z), pc, _mm256_fnmadd_pd(_mm256_set1_pd(0.5), z, _mm256_set1_pd(1.0)));
    __m256i q = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(n));            /* the quadrant, 0..4 */
    __m256i one = _mm256_set1_epi64x(1), two = _mm256_set1_epi64x(2);
    __m256d odd = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(q, one), one));
    __m256d sin_negative = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_and_si256(q, two), 62));
    __m256d cos_negative = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_and_si256(_mm256_add_epi64(q, one), two), 62));
    *sine = _mm256_xor_pd(_mm256_blendv_pd(s, c, odd), sin_negative);
    *cosine = _mm256_xor_pd(_mm256_blendv_pd(c, s, odd), cos_negative);
}

/* One float32 block as normal_block makes it; 0 when a value came too near a rounding boundary
   (nothing written: the caller computes the block again with libm from the same uniforms). */
AVX2 static int normal_block_fast(const float *units, float *out, double loc, double scale)
{
    __m256d locv = _mm256_set1_pd(loc), scalev = _mm256_set1_pd(scale), abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFLL));
    __m128 results[4];
    for (int h = 0; h < 2; h++) {
        __m256d u1 = _mm256_cvtps_pd(_mm_loadu_ps(units + 4 * h)), u2 = _mm256_cvtps_pd(_mm_loadu_ps(units + 8 + 4 * h));
        __m256d radius = _mm256_sqrt_pd(_mm256_mul_pd(_mm256_set1_pd(-2.0), log4(_mm256_sub_pd(_mm256_set1_pd(1.0), u1))));
        __m256d sine, cosine;
        sincos4(_mm256_mul_pd(_mm256_set1_pd(0x1.921fb54442d18p+2), u2), &sine, &cosine);
        __m256d spread = _mm256_and_pd(_mm256_mul_pd(radius, scalev), abs_mask);
        for (int part = 0; part < 2; part++) {
            __m256d v = _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(radius, part ? sine : cosine), scalev), locv);
            __m256d tol = _mm256_mul_pd(_mm256_add_pd(spread, _mm256_and_pd(v, abs_mask)), _mm256_set1_pd(0x1p-40));
            __m128 low = _mm256_cvtpd_ps(_mm256_sub_pd(v, tol)), high = _mm256_cvtpd_ps(_mm256_add_pd(v, tol));
            if (_mm_movemask_ps(_mm_cmpeq_ps(low, high)) != 0xF)   /* also a NaN: libm decides */
                return 0;
            results[2 * part + h] = low;
        }
    }
    _mm_storeu_ps(out, results[0]);
    _mm_storeu_ps(out + 4, results[1]);
    _mm_storeu_ps(out + 8, results[2]);
    _mm_storeu_ps(out + 12, results[3]);
    return 1;
}

/* normal_block for float32, through normal_block_fast when the CPU has AVX2 and FMA. */
static void normal_block_float(bitgen_t *bg, float *out, Py_ssize_t start, double loc, double scale, int exact)
{
    float units[16];
    for (int j = 0; j < 16; j++)
        units[j] = unit24(bg);
    if (!exact && have_avx2 && normal_block_fast(units, out + start, loc, scale))
        return;
    double block[16];
    for (int j = 0; j < 16; j++)
        block[j] = units[j];
    box_muller_16(block);
    for (int j = 0; j < 16; j++)
        out[start + j] = (float)(block[j] * scale + loc);
}
#else
#define SIMD_NORMAL 0
#endif

/* Generator.normal for 16 or more values: whole 16-value blocks, then (when the count is not a
   multiple of 16) the tail's draws made and dropped and the last 16 values redrawn; each value
   v * scale + loc in double, rounded to the array's dtype. */
static PyObject *mt_normal(PyObject *module, PyObject *args)
{
    PyObject *capsule, *out;
    double loc, scale;
    int exact = 0;                    /* 1: libm for every block (the tests compare both ways) */
    if (!PyArg_ParseTuple(args, "OOdd|p:mt_normal", &capsule, &out, &loc, &scale, &exact))
        return NULL;
    bitgen_t *bg = bit_generator(capsule);
    Py_buffer view;
    if (bg == NULL || float_buffer(out, &view, 1, 0, "mt_normal") < 0)
        return NULL;
    Py_ssize_t n = view.len / view.itemsize;
    if (n < 16) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "mt_normal: %zd values, fewer than one block of 16", n);
    }
    int wide = view.itemsize == 8;
    Py_ssize_t whole = n / 16 * 16;
    for (Py_ssize_t start = 0; start < n; start += 16) {
        if (start + 16 > n) {                    /* the tail: its own draws are made, then overwritten */
            for (Py_ssize_t i = whole; i < n; i++)
                (void)(wide ? unit53(bg) : unit24(bg));
            start = n - 16;
        }
#if SIMD_NORMAL
        if (!wide)
            normal_block_float(bg, view.buf, start, loc, scale, exact);
        else
#endif
            normal_block(bg, view.buf, start, wide, loc, scale);
    }
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* Generator.permutation: randperm_cpu's Fisher-Yates, j = i + random() % (n - i), into an int64 array. */
static PyObject *mt_permutation(PyObject *module, PyObject *args)
{
    PyObject *capsule, *out;
    if (!PyArg_ParseTuple(args, "OO:mt_permutation", &capsule, &out))
        return NULL;
    bitgen_t *bg = bit_generator(capsule);
    Py_buffer view;
    if (bg == NULL || PyObject_GetBuffer(out, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (view.itemsize != 8) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_TypeError, "mt_permutation: expected an int64 array");
    }
    int64_t *order = view.buf;
    Py_ssize_t n = view.len / 8;
    for (Py_ssize_t i = 0; i < n; i++)
        order[i] = i;
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        uint64_t draw = bg->next_uint32(bg->state);
        Py_ssize_t j = i + (Py_ssize_t)(draw % (uint64_t)(n - i));
        int64_t kept = order[i];
        order[i] = order[j];
        order[j] = kept;
    }
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* Generator.bernoulli(p): a double uniform below p, into a bool array. */
static PyObject *mt_bernoulli(PyObject *module, PyObject *args)
{
    PyObject *capsule, *out;
    double p;
    if (!PyArg_ParseTuple(args, "OOd:mt_bernoulli", &capsule, &out, &p))
        return NULL;
    bitgen_t *bg = bit_generator(capsule);
    Py_buffer view;
    if (bg == NULL || PyObject_GetBuffer(out, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (view.itemsize != 1) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_TypeError, "mt_bernoulli: expected a bool array");
    }
    unsigned char *o = view.buf;
    for (Py_ssize_t i = 0; i < view.len; i++)
        o[i] = unit53(bg) < p;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* ---- erf and GELU in one pass: engine/ops/special.py's numpy passes, element by element --------

   special.erf is Cephes' rational approximation evaluated in float64 with numpy (about 30 passes,
   both of erfc's branches computed everywhere); here each element takes the same operations in the
   same order, so the result is the same bits (libm's exp is numpy's float64 exp on this machine:
   special.py compares the two on a probe before it uses this path). */

static const double ERF_T[] = {9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
                               7.00332514112805075473e3, 5.55923013010394962768e4};
static const double ERF_U[] = {1.0, 3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3,
                               2.26290000613890934246e4, 4.92673942608635921086e4};
static const double ERF_P[] = {2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
                               4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
                               9.34528527171957607540e2, 1.02755188689515710272e3, 5.57535335369399327526e2};
static const double ERF_Q[] = {1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
                               9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3,
                               1.65666309194161350182e3, 5.57535340817727675546e2};
static const double ERF_R[] = {5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0,
                               6.16021097993053585195e0, 7.40974269950448939160e0, 2.97886665372100240670e0};
static const double ERF_S[] = {1.0, 2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1,
                               1.70814450747565897222e1, 9.60896809063285878198e0, 3.36907645100081516050e0};

static inline double horner(double x, const double *c, int n)
{
    double acc = c[0];
    for (int i = 1; i < n; i++)
        acc = acc * x + c[i];
    return acc;
}

#define HORNER(x, c) horner((x), (c), (int)(sizeof(c) / sizeof((c)[0])))

/* Past this |x| erfc(|x|) < 1e-300, so 1 - erfc is exactly 1: special.ERFC_ZERO (the polynomials of an
   infinite or huge x are inf / inf, which made erf(inf) NaN where PyTorch says 1) */
#define ERFC_ZERO 27.0

/* special.erf on one float64: x T(x^2) / U(x^2) below 1 in size, else sign(x) (1 - erfc(|x|)). */
static double cephes_erf(double x)
{
    if (isnan(x))
        return x + x;           /* x's NaN, quieted, as numpy's passes mostly give (special.same_bits) */
    double ax = fabs(x), z = x * x;
    if (ax < 1.0)
        return x * HORNER(z, ERF_T) / HORNER(z, ERF_U);
    double e = exp(-z);
    double erfc_abs = ax < 8.0 ? e * HORNER(ax, ERF_P) / HORNER(ax, ERF_Q)
                    : ax < ERFC_ZERO ? e * HORNER(ax, ERF_R) / HORNER(ax, ERF_S) : 0.0;
    double sign = x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : x;       /* np.sign: NaN stays NaN */
    return sign * (1.0 - erfc_abs);
}

/* Buffers of one length for a kernel's arrays: the first `n_in` read, the last written; 0 or -1. */
static int float_buffers(PyObject *const *arrays, Py_buffer *views, int count, Py_ssize_t itemsize, const char *what)
{
    for (int i = 0; i < count; i++) {
        if (float_buffer(arrays[i], &views[i], i == count - 1, itemsize, what) < 0
                || views[i].len / views[i].itemsize != views[0].len / views[0].itemsize) {
            if (!PyErr_Occurred()) {
                PyBuffer_Release(&views[i]);
                PyErr_Format(PyExc_ValueError, "%s: arrays of different sizes", what);
            }
            while (i-- > 0)
                PyBuffer_Release(&views[i]);
            return -1;
        }
        itemsize = views[0].itemsize;
    }
    return 0;
}

static void release(Py_buffer *views, int count)
{
    for (int i = 0; i < count; i++)
        PyBuffer_Release(&views[i]);
}

/* engine/ops/elementwise.py's constants, to the bit: 1 / math.sqrt(2.0) (not the nearest double to
   sqrt(0.5), one ulp above) and 1 / math.sqrt(2.0 * math.pi) */
#define SQRT1_2 0x1.6a09e667f3bccp-1
#define INV_SQRT_2PI 0x1.9884533d43651p-2

/* elementwise.py's GELU forward and gradient on one float32 (see gelu_into, gelu_backward_into) */
static inline float gelu_float(float x)
{
    float half = 0.5f * x;
    float e = (float)cephes_erf(x * (float)SQRT1_2);
    return (float)((double)half * (double)e + (double)half);
}

static inline float gelu_backward_float(float g, float x, float ex)
{
    float pdf = ex * (float)INV_SQRT_2PI;
    float half_erf = (float)cephes_erf(x * (float)SQRT1_2) * 0.5f;
    return g * ((x * pdf + 0.5f) + half_erf);
}

/* ---- float32 erf, four lanes at a time, with the numpy evaluation's bits -----------------------

   A float32 erf is the double erf rounded once to float32. Four lanes evaluate special.erf's formula
   with the same operations (no fused multiply-add) except exp, which is a Taylor polynomial after
   n ln 2 is taken off (within a few ulp, as libm's is), so the double e' is within 2^-45 |e'| of
   numpy's; a lane is kept when every double within 2^-36 |e'| of e' rounds to one float32, else the
   four are computed again one by one with libm (cephes_erf). */
#if SIMD_NORMAL

AVX2 static inline __m256d horner4(__m256d x, const double *c, int n)
{
    __m256d acc = _mm256_set1_pd(c[0]);
    for (int i = 1; i < n; i++)
        acc = _mm256_add_pd(_mm256_mul_pd(acc, x), _mm256_set1_pd(c[i]));
    return acc;
}

#define HORNER4(x, c) horner4((x), (c), (int)(sizeof(c) / sizeof((c)[0])))

/* exp(x) for x in [-708, 0] (lower x: 0, which makes erfc's product 0 as libm's underflow does) */
AVX2 static inline __m256d exp4(__m256d x)
{
    __m256d low = _mm256_cmp_pd(x, _mm256_set1_pd(-708.0), _CMP_LT_OQ);
    x = _mm256_max_pd(x, _mm256_set1_pd(-708.0));
    __m256d n = _mm256_round_pd(_mm256_mul_pd(x, _mm256_set1_pd(1.4426950408889634)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256d r = _mm256_fnmadd_pd(n, _mm256_set1_pd(6.93147180369123816490e-01), x);
    r = _mm256_fnmadd_pd(n, _mm256_set1_pd(1.90821492927058770002e-10), r);      /* |r| <= 0.35 */
    __m256d p = _mm256_set1_pd(1.0 / 6227020800.0);                               /* 1/13! ... */
    static const double inverse_factorials[] = {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                                                1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0,
                                                1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0};
    for (int i = 0; i < 13; i++)
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(inverse_factorials[i]));
    __m256i scale = _mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(n)),
                                                       _mm256_set1_epi64x(1023)), 52);
    return _mm256_andnot_pd(low, _mm256_mul_pd(p, _mm256_castsi256_pd(scale)));
}

/* special.erf's formula on four doubles (both of erfc's branches, as numpy computes them) */
AVX2 static inline __m256d erf4(__m256d x)
{
    __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFLL));
    __m256d ax = _mm256_and_pd(x, abs_mask), z = _mm256_mul_pd(x, x);
    __m256d small = _mm256_div_pd(_mm256_mul_pd(x, HORNER4(z, ERF_T)), HORNER4(z, ERF_U));
    __m256d below_one = _mm256_cmp_pd(ax, _mm256_set1_pd(1.0), _CMP_LT_OQ);
    if (_mm256_movemask_pd(below_one) == 0xF)         /* (a branch no lane takes is not computed) */
        return small;
    __m256d e = exp4(_mm256_xor_pd(z, _mm256_set1_pd(-0.0)));
    __m256d mid = _mm256_div_pd(_mm256_mul_pd(e, HORNER4(ax, ERF_P)), HORNER4(ax, ERF_Q));
    __m256d below_eight = _mm256_cmp_pd(ax, _mm256_set1_pd(8.0), _CMP_LT_OQ);
    __m256d erfc_abs = mid;
    if (_mm256_movemask_pd(below_eight) != 0xF)
        erfc_abs = _mm256_blendv_pd(_mm256_div_pd(_mm256_mul_pd(e, HORNER4(ax, ERF_R)), HORNER4(ax, ERF_S)), mid,
                                    below_eight);
    __m256d sign = _mm256_or_pd(_mm256_and_pd(x, _mm256_set1_pd(-0.0)), _mm256_set1_pd(1.0));
    __m256d large = _mm256_mul_pd(sign, _mm256_sub_pd(_mm256_set1_pd(1.0), erfc_abs));
    return _mm256_blendv_pd(large, small, below_one);
}

/* (float)cephes_erf(a) for four floats, or 0 when a lane came near a float32 rounding boundary
   (or is not finite: NaN, and erf's NaN far out, go to libm). */
AVX2 static inline int erf_float4(__m128 a, __m128 *out)
{
    __m256d e = erf4(_mm256_cvtps_pd(a));
    __m256d tol = _mm256_mul_pd(_mm256_and_pd(e, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFLL))),
                                _mm256_set1_pd(0x1p-36));
    __m128 low = _mm256_cvtpd_ps(_mm256_sub_pd(e, tol)), high = _mm256_cvtpd_ps(_mm256_add_pd(e, tol));
    *out = low;
    return _mm_movemask_ps(_mm_cmpeq_ps(low, high)) == 0xF;
}

/* erf_into, gelu_into and gelu_backward_into for float32, four at a time; each group of four that
   erf_float4 refuses, and the last n % 4, as the scalar loops compute them. */
AVX2 static void erf_float_fast(const float *x, float *o, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m128 e;
        if (erf_float4(_mm_loadu_ps(x + i), &e))
            _mm_storeu_ps(o + i, e);
        else
            for (int j = 0; j < 4; j++)
                o[i + j] = (float)cephes_erf(x[i + j]);
    }
    for (; i < n; i++)
        o[i] = (float)cephes_erf(x[i]);
}

AVX2 static void gelu_float_fast(const float *x, float *o, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m128 xv = _mm_loadu_ps(x + i), e;
        if (erf_float4(_mm_mul_ps(xv, _mm_set1_ps((float)SQRT1_2)), &e)) {
            __m256d half = _mm256_cvtps_pd(_mm_mul_ps(_mm_set1_ps(0.5f), xv));
            _mm_storeu_ps(o + i, _mm256_cvtpd_ps(_mm256_add_pd(_mm256_mul_pd(half, _mm256_cvtps_pd(e)), half)));
        } else {
            for (int j = 0; j < 4; j++)
                o[i + j] = gelu_float(x[i + j]);
        }
    }
    for (; i < n; i++)
        o[i] = gelu_float(x[i]);
}

AVX2 static void gelu_backward_float_fast(const float *g, const float *x, const float *ex, float *o, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m128 xv = _mm_loadu_ps(x + i), e;
        if (erf_float4(_mm_mul_ps(xv, _mm_set1_ps((float)SQRT1_2)), &e)) {
            __m128 pdf = _mm_mul_ps(_mm_loadu_ps(ex + i), _mm_set1_ps((float)INV_SQRT_2PI));
            __m128 sum = _mm_add_ps(_mm_add_ps(_mm_mul_ps(xv, pdf), _mm_set1_ps(0.5f)), _mm_mul_ps(e, _mm_set1_ps(0.5f)));
            _mm_storeu_ps(o + i, _mm_mul_ps(_mm_loadu_ps(g + i), sum));
        } else {
            for (int j = 0; j < 4; j++)
                o[i + j] = gelu_backward_float(g[i + j], x[i + j], ex[i + j]);
        }
    }
    for (; i < n; i++)
        o[i] = gelu_backward_float(g[i], x[i], ex[i]);
}
#endif

/* erf_into(x, out): special.erf(x) for a float32 or float64 x, into out of x's dtype. */
static PyObject *erf_into(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer v[2];
    if (nargs != 2)
        return PyErr_Format(PyExc_TypeError, "erf_into(x, out) takes 2 arguments");
    if (float_buffers(args, v, 2, 0, "erf_into") < 0)
        return NULL;
    Py_ssize_t n = v[0].len / v[0].itemsize;
    if (v[0].itemsize == 8)
        for (Py_ssize_t i = 0; i < n; i++)
            ((double *)v[1].buf)[i] = cephes_erf(((double *)v[0].buf)[i]);
#if SIMD_NORMAL
    else if (have_avx2)
        erf_float_fast(v[0].buf, v[1].buf, n);
#endif
    else
        for (Py_ssize_t i = 0; i < n; i++)
            ((float *)v[1].buf)[i] = (float)cephes_erf(((float *)v[0].buf)[i]);
    release(v, 2);
    Py_RETURN_NONE;
}


/* gelu_into(x, out): elementwise.py's _gelu_forward: 0.5 x + 0.5 x erf(x / sqrt 2) with one
   rounding (float32: the erf rounded to float32 first, the sum in double). */
static PyObject *gelu_into(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer v[2];
    if (nargs != 2)
        return PyErr_Format(PyExc_TypeError, "gelu_into(x, out) takes 2 arguments");
    if (float_buffers(args, v, 2, 0, "gelu_into") < 0)
        return NULL;
    Py_ssize_t n = v[0].len / v[0].itemsize;
    if (v[0].itemsize == 8) {
        const double *x = v[0].buf;
        double *o = v[1].buf;
        for (Py_ssize_t i = 0; i < n; i++) {
            double half = 0.5 * x[i];
            o[i] = half + half * cephes_erf(x[i] * SQRT1_2);
        }
    }
#if SIMD_NORMAL
    else if (have_avx2)
        gelu_float_fast(v[0].buf, v[1].buf, n);
#endif
    else {
        const float *x = v[0].buf;
        float *o = v[1].buf;
        for (Py_ssize_t i = 0; i < n; i++)
            o[i] = gelu_float(x[i]);
    }
    release(v, 2);
    Py_RETURN_NONE;
}

/* gelu_backward_into(g, x, ex, out): elementwise.py's _gelu_vjp on numpy arrays of one dtype,
   g ((x phi(x) + 1/2) + erf(x / sqrt 2) / 2) with phi(x) = ex / sqrt(2 pi), where ex is
   exp(-x^2 / 2) computed by numpy (its float32 exp is its own vectorised one, not libm's). */
static PyObject *gelu_backward_into(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer v[4];
    if (nargs != 4)
        return PyErr_Format(PyExc_TypeError, "gelu_backward_into(g, x, ex, out) takes 4 arguments");
    if (float_buffers(args, v, 4, 0, "gelu_backward_into") < 0)
        return NULL;
    Py_ssize_t n = v[0].len / v[0].itemsize;
    if (v[0].itemsize == 8) {
        const double *g = v[0].buf, *x = v[1].buf, *ex = v[2].buf;
        double *o = v[3].buf;
        for (Py_ssize_t i = 0; i < n; i++) {
            double pdf = ex[i] * INV_SQRT_2PI;
            double half_erf = cephes_erf(x[i] * SQRT1_2) * 0.5;
            o[i] = g[i] * ((x[i] * pdf + 0.5) + half_erf);
        }
    }
#if SIMD_NORMAL
    else if (have_avx2)
        gelu_backward_float_fast(v[0].buf, v[1].buf, v[2].buf, v[3].buf, n);
#endif
    else {
        const float *g = v[0].buf, *x = v[1].buf, *ex = v[2].buf;
        float *o = v[3].buf;
        for (Py_ssize_t i = 0; i < n; i++)
            o[i] = gelu_backward_float(g[i], x[i], ex[i]);
    }
    release(v, 4);
    Py_RETURN_NONE;
}

/* ---- the module ----------------------------------------------------------------------------- */

/* ---- the record's statistics (engine/record/values.py's _raw_stats) ----------------------------

   stats(x): for a C-contiguous float32 or float64 x, (min, max, sum, sum of squared deviations)
   in float64, or None when x holds a non-finite value or no value (values.py then takes numpy's
   path). The two sums are numpy's np.add.reduce(a, axis=None) of the float64 copy a, and of
   (a - sum / n) ** 2 computed as numpy's subtract then multiply: numpy's pairwise summation
   (loops_utils.h.src's pairwise_sum: below 8 values one by one, up to PW_BLOCKSIZE 128 eight
   accumulators added pairwise then the tail, above that the two halves, the first a multiple of
   8 long), started from add's identity 0.0. The same operations in the same order: the same bits
   (tests/engine/native/test_native_stats.py; values.py probes once and keeps numpy if not). */

#define PW_BLOCKSIZE 128

typedef struct { double low, high; } Extremes;

/* One pairwise sum over n values of a, each value x first transformed by VALUE (which may note it
   in the block's lane extremes lo[8], hi[8], kept per accumulator so the block's loop vectorises). */
#define PAIRWISE(NAME, TYPE, VALUE)                                                                    \
static double NAME(const TYPE *a, Py_ssize_t n, double mean, Extremes *e)                             \
{                                                                                                     \
    double lo[8], hi[8];                                                                              \
    for (int j = 0; j < 8; j++)                                                                       \
        lo[j] = e->low, hi[j] = e->high;                                                              \
    double res;                                                                                       \
    if (n < 8) {                                                                                      \
        res = -0.0;                                                                                   \
        for (Py_ssize_t i = 0; i < n; i++) {                                                          \
            double x = (double)a[i];                                                                  \
            const int j = 0;                                                                          \
            VALUE;                                                                                    \
            res += x;                                                                                 \
        }                                                                                             \
    }                                                                                                 \
    else if (n <= PW_BLOCKSIZE) {                                                                     \
        double r[8];                                                                                  \
        for (int j = 0; j < 8; j++) {                                                                 \
            double x = (double)a[j];                                                                  \
            VALUE;                                                                                    \
            r[j] = x;                                                                                 \
        }                                                                                             \
        Py_ssize_t i;                                                                                 \
        for (i = 8; i < n - (n % 8); i += 8)                                                          \
            for (int j = 0; j < 8; j++) {                                                             \
                double x = (double)a[i + j];                                                          \
                VALUE;                                                                                \
                r[j] += x;                                                                            \
            }                                                                                         \
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));                      \
        for (; i < n; i++) {                                                                          \
            double x = (double)a[i];                                                                  \
            const int j = 0;                                                                          \
            VALUE;                                                                                    \
            res += x;                                                                                 \
        }                                                                                             \
    }                                                                                                 \
    else {                                                                                            \
        Py_ssize_t n2 = n / 2;                                                                        \
        n2 -= n2 % 8;                                                                                 \
        double left = NAME(a, n2, mean, e);                                                           \
        return left + NAME(a + n2, n - n2, mean, e);                                                  \
    }                                                                                                 \
    for (int j = 0; j < 8; j++) {                                                                     \
        e->low = lo[j] < e->low ? lo[j] : e->low;                                                     \
        e->high = hi[j] > e->high ? hi[j] : e->high;                                                  \
    }                                                                                                 \
    return res;                                                                                       \
}

/* pass 1: each value as it is, noting the extremes (a NaN or an infinity is seen in the sum: a
   sum holding one is not finite, and a finite one is the only case kept) */
#define NOTE_EXTREMES                                                                                 \
    lo[j] = x < lo[j] ? x : lo[j];                                                                    \
    hi[j] = x > hi[j] ? x : hi[j]
/* pass 2: the squared deviation from the mean, rounded after the subtraction and the product */
#define SQUARED_DEVIATION  x = x - mean; x = x * x

PAIRWISE(sum_float, float, NOTE_EXTREMES)
PAIRWISE(sum_double, double, NOTE_EXTREMES)
PAIRWISE(squares_float, float, SQUARED_DEVIATION)
PAIRWISE(squares_double, double, SQUARED_DEVIATION)

#if SIMD_NORMAL
/* The same sums with AVX (when the CPU has AVX2, as the normal draws): PAIRWISE's eight
   accumulators r[0..7] are two vectors of four doubles, lane j adding the values PAIRWISE's r[j]
   adds, in the same order, with the same two roundings for a squared deviation (a subtraction, then
   a product: no fused multiply-add), and combined as PAIRWISE combines them; fewer than 8 values,
   a block's tail and the halving above PW_BLOCKSIZE are PAIRWISE's own code. So the same bits,
   about three times faster (tests/engine/native/test_native_stats.py compares the two). */
#define LOAD4_float(p) _mm256_cvtps_pd(_mm_loadu_ps(p))
#define LOAD4_double(p) _mm256_loadu_pd(p)
#define EXTREMES4(x) lo4 = _mm256_min_pd(x, lo4), hi4 = _mm256_max_pd(x, hi4)
#define SQUARED4(x) x = _mm256_sub_pd(x, m4), x = _mm256_mul_pd(x, x)
#define PAIRWISE_AVX(NAME, TYPE, VALUE, VALUE4)                                                        \
AVX2 static double NAME(const TYPE *a, Py_ssize_t n, double mean, Extremes *e)                        \
{                                                                                                     \
    if (n > PW_BLOCKSIZE) {                                                                           \
        Py_ssize_t n2 = n / 2;                                                                        \
        n2 -= n2 % 8;                                                                                 \
        double left = NAME(a, n2, mean, e);                                                           \
        return left + NAME(a + n2, n - n2, mean, e);                                                  \
    }                                                                                                 \
    double lo[1] = {e->low}, hi[1] = {e->high}, res;                                                  \
    const int j = 0;                                                                                  \
    Py_ssize_t i = 0;                                                                                 \
    (void)mean;                                                                                       \
    if (n < 8) {                                                                                      \
        res = -0.0;                                                                                   \
    }                                                                                                 \
    else {                                                                                            \
        const __m256d m4 = _mm256_set1_pd(mean);                                                      \
        __m256d lo4 = _mm256_set1_pd(e->low), hi4 = _mm256_set1_pd(e->high);                         \
        __m256d x0 = LOAD4_##TYPE(a), x1 = LOAD4_##TYPE(a + 4);                                       \
        VALUE4(x0); VALUE4(x1);                                                                       \
        __m256d r0 = x0, r1 = x1;                                                                     \
        for (i = 8; i < n - (n % 8); i += 8) {                                                        \
            x0 = LOAD4_##TYPE(a + i), x1 = LOAD4_##TYPE(a + i + 4);                                   \
            VALUE4(x0); VALUE4(x1);                                                                   \
            r0 = _mm256_add_pd(r0, x0), r1 = _mm256_add_pd(r1, x1);                                   \
        }                                                                                             \
        double r[8], l[4], h[4];                                                                      \
        _mm256_storeu_pd(r, r0), _mm256_storeu_pd(r + 4, r1);                                         \
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));                      \
        _mm256_storeu_pd(l, lo4), _mm256_storeu_pd(h, hi4);                                           \
        (void)m4, (void)l, (void)h;                                                                   \
        for (int k = 0; k < 4; k++)                                                                   \
            lo[0] = l[k] < lo[0] ? l[k] : lo[0], hi[0] = h[k] > hi[0] ? h[k] : hi[0];                 \
    }                                                                                                 \
    for (; i < n; i++) {                                                                              \
        double x = (double)a[i];                                                                      \
        VALUE;                                                                                        \
        res += x;                                                                                     \
    }                                                                                                 \
    e->low = lo[0] < e->low ? lo[0] : e->low;                                                         \
    e->high = hi[0] > e->high ? hi[0] : e->high;                                                      \
    return res;                                                                                       \
}

PAIRWISE_AVX(sum_float_avx, float, NOTE_EXTREMES, EXTREMES4)
PAIRWISE_AVX(sum_double_avx, double, NOTE_EXTREMES, EXTREMES4)
PAIRWISE_AVX(squares_float_avx, float, SQUARED_DEVIATION, SQUARED4)
PAIRWISE_AVX(squares_double_avx, double, SQUARED_DEVIATION, SQUARED4)
#endif

typedef double (*PairwiseSum)(const void *, Py_ssize_t, double, Extremes *);

static PyObject *stats(PyObject *module, PyObject *args)
{
    PyObject *x;
    int simd = 1;              /* stats(x, False): PAIRWISE's loops even where AVX2 is (for the tests) */
    if (!PyArg_ParseTuple(args, "O|p:stats", &x, &simd))
        return NULL;
    Py_buffer v;
    if (float_buffer(x, &v, 0, 0, "stats") < 0)
        return NULL;
    Py_ssize_t n = v.len / v.itemsize;
    Extremes e = {INFINITY, -INFINITY};
    double sum = NAN, squares = NAN;
    if (n > 0) {
        Py_BEGIN_ALLOW_THREADS
        PairwiseSum values = (PairwiseSum)(v.itemsize == 8 ? sum_double : sum_float);
        PairwiseSum deviations = (PairwiseSum)(v.itemsize == 8 ? squares_double : squares_float);
#if SIMD_NORMAL
        if (have_avx2 && simd) {
            values = (PairwiseSum)(v.itemsize == 8 ? sum_double_avx : sum_float_avx);
            deviations = (PairwiseSum)(v.itemsize == 8 ? squares_double_avx : squares_float_avx);
        }
#endif
        sum = 0.0 + values(v.buf, n, 0.0, &e);
        if (isfinite(sum)) {
            double mean = sum / (double)n;
            squares = 0.0 + deviations(v.buf, n, mean, &e);
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&v);
    if (!isfinite(sum) || !isfinite(squares))
        Py_RETURN_NONE;
    return Py_BuildValue("(dddd)", e.low, e.high, sum, squares);
}

/* strip(x, out[, simd]): the trajectory's strip (engine/record/trajectory.py's summarise): out[k], for
   each of the len(out) cells of C-contiguous float32/float64 x's values in order (cell k from
   k * n // cells), the cell's mean as np.add.reduceat(x, starts, dtype=np.float64) / sizes gives it:
   reduceat casts x to float64 and reduces each cell as add's reduce loop does, its first value then
   += numpy's pairwise sum of the rest (PAIRWISE above; a single value as it is), then one
   division. The same bits (tests/engine/native/test_native_stats.py compares them with numpy). */
static PyObject *strip(PyObject *module, PyObject *args)
{
    PyObject *x, *o;
    int simd = 1;
    if (!PyArg_ParseTuple(args, "OO|p:strip", &x, &o, &simd))
        return NULL;
    Py_buffer v, w;
    if (float_buffer(x, &v, 0, 0, "strip") < 0)
        return NULL;
    if (float_buffer(o, &w, 1, 8, "strip") < 0) {
        PyBuffer_Release(&v);
        return NULL;
    }
    Py_ssize_t n = v.len / v.itemsize, cells = w.len / 8;
    if (cells > n) {
        PyBuffer_Release(&v);
        PyBuffer_Release(&w);
        return PyErr_Format(PyExc_ValueError, "strip: %zd cells of %zd values", cells, n);
    }
    PairwiseSum sum = (PairwiseSum)(v.itemsize == 8 ? sum_double : sum_float);
#if SIMD_NORMAL
    if (have_avx2 && simd)
        sum = (PairwiseSum)(v.itemsize == 8 ? sum_double_avx : sum_float_avx);
#endif
    double *out = w.buf;
    const char *a = v.buf;
    for (Py_ssize_t k = 0; k < cells; k++) {
        Py_ssize_t start = k * n / cells, end = (k + 1) * n / cells;
        double first = v.itemsize == 8 ? ((const double *)a)[start] : (double)((const float *)a)[start];
        if (end - start > 1) {
            Extremes e = {INFINITY, -INFINITY};
            first += sum(a + (start + 1) * v.itemsize, end - start - 1, 0.0, &e);
        }
        out[k] = first / (double)(end - start);
    }
    PyBuffer_Release(&v);
    PyBuffer_Release(&w);
    Py_RETURN_NONE;
}

/* address(x): where C-contiguous x's memory starts (values.py's BlockStats keys by it; numpy's
   __array_interface__ builds a dict of nine entries to say it) */
static PyObject *address(PyObject *module, PyObject *x)
{
    Py_buffer v;
    if (PyObject_GetBuffer(x, &v, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    PyObject *found = PyLong_FromVoidPtr(v.buf);
    PyBuffer_Release(&v);
    return found;
}

/* ---- a record's summary of one tensor (values.py's TensorMemo), in two calls ---------------------

   The per-tensor Python around the statistics (finding the tensor's block of memory, ordering a
   view's axes, a gapped view's copy, the mean and std, the preview) cost three times the C sums of
   a 20 x 200 gradient: an LSTM LM writes ~4,600 such tensors. These take any strided buffer.

   memory_order: x's axes holding more than one value, sorted by stride, largest first (a stable
   sort: values.py's _in_memory_order sorts so, and numpy's C-ordered copy of that view is what the
   sums read); 0 when one of those strides is not positive (numpy's path). */
static int memory_order(const Py_buffer *v, int *order)
{
    int k = 0;
    for (int d = 0; d < v->ndim; d++) {
        if (v->shape[d] <= 1)
            continue;
        if (v->strides[d] <= 0)
            return -1;
        int i = k++;
        while (i > 0 && v->strides[order[i - 1]] < v->strides[d]) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = d;
    }
    return k;
}

/* 1 when the axes in `order` read one C-ordered block of memory from v->buf */
static int one_block(const Py_buffer *v, const int *order, int k)
{
    Py_ssize_t step = v->itemsize;
    for (int i = k - 1; i >= 0; i--) {
        if (v->strides[order[i]] != step)
            return 0;
        step *= v->shape[order[i]];
    }
    return 1;
}

/* block(x): the address of x's first byte when x is one block of memory seen in some axis order (a
   C-ordered array, a transpose, an attention head's permute), else None (a view with gaps, a
   negative or zero stride): values.py's _block without the transposed view. */
static PyObject *block(PyObject *module, PyObject *x)
{
    Py_buffer v;
    if (PyObject_GetBuffer(x, &v, PyBUF_RECORDS_RO) < 0)
        return NULL;
    int order[64];
    int k = v.ndim <= 64 ? memory_order(&v, order) : -1;
    PyObject *found = k >= 0 && one_block(&v, order, k) ? PyLong_FromVoidPtr(v.buf) : Py_NewRef(Py_None);
    PyBuffer_Release(&v);
    return found;
}

/* v's values in memory order (memory_order's axes) into the C-ordered `out`: numpy's
   np.ascontiguousarray of the view _in_memory_order gives */
static void gather(const Py_buffer *v, const int *order, int k, char *out)
{
    Py_ssize_t index[64] = {0}, size = v->itemsize;
    const char *at = v->buf;
    if (k == 0) {
        memcpy(out, at, size);
        return;
    }
    const int last = order[k - 1];
    const Py_ssize_t n = v->shape[last], stride = v->strides[last];
    for (;;) {
        const char *p = at;
        if (stride == size)            /* (a run of memory: a slice of columns) */
            memcpy(out, p, n * size), out += n * size;
        else if (size == 4)                 /* (a typed copy: memcpy of a variable size was a call per value) */
            for (Py_ssize_t i = 0; i < n; i++, p += stride, out += 4)
                *(float *)out = *(const float *)p;
        else
            for (Py_ssize_t i = 0; i < n; i++, p += stride, out += 8)
                *(double *)out = *(const double *)p;
        int i = k - 2;
        for (; i >= 0; i--) {
            const int d = order[i];
            at += v->strides[d];
            if (++index[i] < v->shape[d])
                break;
            at -= v->strides[d] * v->shape[d];
            index[i] = 0;
        }
        if (i < 0)
            return;
    }
}

/* summary(x, first, stats=True, simd=True) -> (stats, preview). stats: the record's (min, max, mean,
   std) of float32/float64 x (native byte order, any strides) as values.py's _raw_stats_c computes
   them on _in_memory_order(x) (its C-ordered copy for a view with gaps): stats' two pairwise passes
   over the values in memory order, then sum / n and sqrt(squares / n); None when x holds a value
   that is not finite, its layout is numpy's to read (a negative or zero stride), or stats is
   false. preview: the float64 bytes of x's first min(first, size) values in x's own C order (the
   record's preview), None when first < 0. */
static PyObject *summary(PyObject *module, PyObject *args)
{
    PyObject *x;
    int want_stats = 1, simd = 1;
    Py_ssize_t first;
    if (!PyArg_ParseTuple(args, "On|pp:summary", &x, &first, &want_stats, &simd))
        return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(x, &v, PyBUF_RECORDS_RO) < 0)
        return NULL;
    char kind = v.format ? v.format[v.format[0] == '=' || v.format[0] == '<' ? 1 : 0] : 0;
    int is_double = kind == 'd' && v.itemsize == 8;
    if (!(is_double || (kind == 'f' && v.itemsize == 4)) || v.ndim > 64 || (v.format && v.format[1] && v.format[2])) {
        PyBuffer_Release(&v);
        return PyErr_Format(PyExc_TypeError, "summary: expected a float32 or float64 array");
    }
    Py_ssize_t n = v.itemsize ? v.len / v.itemsize : 0;
    PyObject *preview = NULL, *found = NULL;
    if (first >= 0) {
        /* the first values in C order: walk the index from the last axis */
        Py_ssize_t m = first < n ? first : n, index[64] = {0};
        preview = PyBytes_FromStringAndSize(NULL, m * 8);
        if (preview == NULL)
            goto done;
        double *out = (double *)PyBytes_AS_STRING(preview);
        const char *at = v.buf;
        for (Py_ssize_t i = 0; i < m; i++) {
            out[i] = is_double ? *(const double *)at : (double)*(const float *)at;
            for (int d = v.ndim - 1; d >= 0; d--) {
                at += v.strides[d];
                if (++index[d] < v.shape[d])
                    break;
                at -= v.strides[d] * v.shape[d];
                index[d] = 0;
            }
        }
    }
    int order[64];
    int k = want_stats && n > 0 ? memory_order(&v, order) : -1;
    if (k < 0) {
        found = Py_NewRef(Py_None);
    }
    else {
        const void *values = v.buf;
        void *copy = NULL;
        if (!one_block(&v, order, k)) {
            copy = PyMem_Malloc(n * v.itemsize);
            if (copy == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            gather(&v, order, k, copy);
            values = copy;
        }
        Extremes e = {INFINITY, -INFINITY};
        double sum, squares = NAN;
        PairwiseSum pass1 = (PairwiseSum)(is_double ? sum_double : sum_float);
        PairwiseSum pass2 = (PairwiseSum)(is_double ? squares_double : squares_float);
#if SIMD_NORMAL
        if (have_avx2 && simd) {
            pass1 = (PairwiseSum)(is_double ? sum_double_avx : sum_float_avx);
            pass2 = (PairwiseSum)(is_double ? squares_double_avx : squares_float_avx);
        }
#endif
        Py_BEGIN_ALLOW_THREADS
        sum = 0.0 + pass1(values, n, 0.0, &e);
        if (isfinite(sum))
            squares = 0.0 + pass2(values, n, sum / (double)n, &e);
        Py_END_ALLOW_THREADS
        PyMem_Free(copy);
        if (!isfinite(sum) || !isfinite(squares))
            found = Py_NewRef(Py_None);
        else
            found = Py_BuildValue("(dddd)", e.low, e.high, sum / (double)n, sqrt(squares / (double)n));
    }
done:
    PyBuffer_Release(&v);
    if (found == NULL || (first >= 0 && preview == NULL)) {
        Py_XDECREF(found);
        Py_XDECREF(preview);
        return NULL;
    }
    PyObject *pair = PyTuple_Pack(2, found, preview ? preview : Py_None);
    Py_DECREF(found);
    Py_XDECREF(preview);
    return pair;
}

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

/* Install one operator in `table` (a name seen before takes its old slot back) and return its
   method descriptor for Tensor. */
static PyObject *make_operator(PyObject *args, Operator *table, int *count, PyMethodDef *defs,
                               const PyCFunction *functions, int flags, const char *what)
{
    PyObject *name, *python_operator, *compute, *node_class, *op;
    if (!PyArg_ParseTuple(args, "UOOOO", &name, &python_operator, &compute, &node_class, &op))
        return NULL;
    if (tensor_type == NULL)
        return PyErr_Format(PyExc_RuntimeError, "setup() must run before %s()", what);
    int i = 0;
    while (i < *count && PyUnicode_Compare(table[i].name, name) != 0)
        i++;
    if (i == MAX_OPERATORS)
        return PyErr_Format(PyExc_RuntimeError, "more than %d native %s operators", MAX_OPERATORS, what);
    PyMethodDef *def = &defs[i];
    def->ml_name = PyUnicode_AsUTF8(name);    /* valid while `name` lives: table[i] keeps it */
    def->ml_meth = functions[i];
    def->ml_flags = flags;
    def->ml_doc = "Tensor operator, run natively (engine/native/fastops.c).";
    PyObject *descriptor = def->ml_name ? PyDescr_NewMethod(tensor_type, def) : NULL;
    if (descriptor == NULL)
        return NULL;
    Operator *oper = &table[i];
    Py_INCREF(name); Py_XSETREF(oper->name, name);
    Py_INCREF(python_operator); Py_XSETREF(oper->python_operator, python_operator);
    Py_INCREF(compute); Py_XSETREF(oper->compute, compute);
    PyObject *grad_fn_class = node_class == Py_None ? NULL : node_class;
    Py_XINCREF(grad_fn_class); Py_XSETREF(oper->node_class, grad_fn_class);
    Py_INCREF(op); Py_XSETREF(oper->op, op);
    if (i == *count)
        (*count)++;
    return descriptor;
}

static PyObject *binary_operator(PyObject *module, PyObject *args)
{
    return make_operator(args, binary_ops, &binary_count, binary_defs, binary_functions, METH_FASTCALL, "binary");
}

static PyObject *unary_operator(PyObject *module, PyObject *args)
{
    return make_operator(args, unary_ops, &unary_count, unary_defs, unary_functions, METH_NOARGS, "unary");
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
    {"unary_operator", unary_operator, METH_VARARGS,
     "unary_operator(name, python_method, forward, node_class_or_None, op) -> a Tensor method."},
    {"mt_uniform", mt_uniform, METH_VARARGS,
     "mt_uniform(bit_generator_capsule, out, low, high): Generator.uniform into a float32/float64 array."},
    {"mt_normal", mt_normal, METH_VARARGS,
     "mt_normal(bit_generator_capsule, out, loc, scale, exact=False): Generator.normal (16 or more values) "
     "into out; exact: libm for every float32 block (the same values, slower)."},
    {"mt_permutation", mt_permutation, METH_VARARGS,
     "mt_permutation(bit_generator_capsule, out): Generator.permutation into an int64 array."},
    {"mt_bernoulli", mt_bernoulli, METH_VARARGS,
     "mt_bernoulli(bit_generator_capsule, out, p): Generator.bernoulli(p) into a bool array."},
    {"erf_into", (PyCFunction)(void (*)(void))erf_into, METH_FASTCALL, "erf_into(x, out): special.erf."},
    {"gelu_into", (PyCFunction)(void (*)(void))gelu_into, METH_FASTCALL, "gelu_into(x, out): GELU's forward."},
    {"gelu_backward_into", (PyCFunction)(void (*)(void))gelu_backward_into, METH_FASTCALL,
     "gelu_backward_into(g, x, exp(-x*x/2), out): GELU's gradient."},
    {"stats", stats, METH_VARARGS,
     "stats(x, simd=True) -> (min, max, sum, sum of squared deviations from sum / n), numpy's pairwise sums, or None."},
    {"strip", strip, METH_VARARGS,
     "strip(x, out, simd=True): out[k] = the mean of cell k of len(out) cells of x, as np.add.reduceat's float64 sums."},
    {"address", address, METH_O, "address(x): the address of C-contiguous x's first byte."},
    {"block", block, METH_O, "block(x): the address of x's first byte when x is one block of memory in some axis order, else None."},
    {"summary", summary, METH_VARARGS,
     "summary(x, first, stats=True, simd=True) -> ((min, max, mean, std) or None, the float64 bytes of x's first values or None)."},
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
#if SIMD_NORMAL
    have_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return PyModule_Create(&module_def);
}
