/* Dagscope's neural-network kernels in C: loops that numpy runs as several passes (or as a Python
   loop of passes), done in one, with the same floating-point operations in the same order, so the
   same bits. Each function is engine/ops' numpy code's twin; the numpy code stays the reference
   it falls back on (no compiler, DAGSCOPE_NATIVE=0, an array these loops do not take), and
   tests/engine/native/test_native_nn.py compares the two bit for bit.

   Kept apart from fastops.c (the eager operators, the random streams, erf) so each file stays
   about one thing; engine/native/__init__.py builds and loads both the same way. Compiled with
   -ffp-contract=off: an addition here is the one rounding numpy's makes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* -O2's vectoriser does not take loops of a run-time length; a vector addition rounds each lane as
   the scalar one does, so -O3 here changes speed only (there are no multiply-adds to contract). */
#pragma GCC optimize("O3")

/* A C-contiguous float32 or float64 buffer of `ndim` dimensions (-1 and an exception otherwise). */
static int float_array(PyObject *array, Py_buffer *view, int writable, int ndim, const char *what)
{
    if (PyObject_GetBuffer(array, view, (writable ? PyBUF_WRITABLE : 0) | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *f = view->format ? view->format : "";
    char kind = f[f[0] == '=' || f[0] == '<' ? 1 : 0];
    if (view->ndim != ndim || !((kind == 'f' && view->itemsize == 4) || (kind == 'd' && view->itemsize == 8))) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "%s: expected a C-contiguous %d-d float32 or float64 array", what, ndim);
        return -1;
    }
    return 0;
}

static inline void add_float(float *restrict d, const float *restrict e, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        d[i] += e[i];
}

static inline void add_double(double *restrict d, const double *restrict e, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        d[i] += e[i];
}

/* col2im_add(cols, padded, stride_h, stride_w): engine/ops/nn.py's col2im loop,

       for u in range(kh):
           for v in range(kw):
               padded[:, u:u + sh * oh:sh, v:v + sw * ow:sw] += cols[:, :, :, u, v]

   with cols (N, OH, OW, kh, kw, C) and padded (N, H', W', C), channels last. Here one row of
   `padded` at a time receives all its terms (the row stays in cache; numpy's passes went over the
   whole image kh * kw times), but every element still receives them in numpy's (u, v) order, each
   addition rounded to the dtype as numpy's is: the same bits. */
#define COL2IM(TYPE)                                                                                  \
    for (Py_ssize_t s = 0; s < n; s++) {                                                              \
        TYPE *dst = (TYPE *)p.buf + s * hp * wp * c;                                                  \
        const TYPE *src = (const TYPE *)k.buf + s * oh * ow * kh * kw * c;                            \
        for (Py_ssize_t y = 0; y < hp; y++)                                                           \
            for (Py_ssize_t u = 0; u < kh && u <= y; u++) {                                           \
                Py_ssize_t i = (y - u) / sh;                                                          \
                if ((y - u) % sh || i >= oh)                                                          \
                    continue;                                                                         \
                TYPE *row = dst + y * wp * c;                                                         \
                const TYPE *col = src + (i * ow * kh + u) * kw * c;                                   \
                for (Py_ssize_t v = 0; v < kw; v++)                                                   \
                    for (Py_ssize_t j = 0; j < ow; j++)                                               \
                        add_##TYPE(row + (v + j * sw) * c, col + (j * kh * kw + v) * c, c);           \
            }                                                                                         \
    }

static PyObject *col2im_add(PyObject *module, PyObject *args)
{
    PyObject *cols, *padded;
    Py_ssize_t sh, sw;
    if (!PyArg_ParseTuple(args, "OOnn", &cols, &padded, &sh, &sw))
        return NULL;
    Py_buffer k, p;
    if (float_array(cols, &k, 0, 6, "col2im_add") < 0)
        return NULL;
    if (float_array(padded, &p, 1, 4, "col2im_add") < 0) {
        PyBuffer_Release(&k);
        return NULL;
    }
    Py_ssize_t n = k.shape[0], oh = k.shape[1], ow = k.shape[2], kh = k.shape[3], kw = k.shape[4], c = k.shape[5];
    Py_ssize_t hp = p.shape[1], wp = p.shape[2];
    int fits = p.itemsize == k.itemsize && p.shape[0] == n && p.shape[3] == c && sh > 0 && sw > 0
               && (oh == 0 || kh == 0 || (kh - 1) + sh * (oh - 1) < hp)
               && (ow == 0 || kw == 0 || (kw - 1) + sw * (ow - 1) < wp);
    if (!fits) {
        PyBuffer_Release(&k);
        PyBuffer_Release(&p);
        return PyErr_Format(PyExc_ValueError, "col2im_add: the columns do not fit the padded image");
    }
    Py_BEGIN_ALLOW_THREADS
    if (k.itemsize == 4) {
        COL2IM(float)
    } else {
        COL2IM(double)
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&k);
    PyBuffer_Release(&p);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"col2im_add", col2im_add, METH_VARARGS,
     "col2im_add(cols (N, OH, OW, kh, kw, C), padded (N, H', W', C), stride_h, stride_w): conv2d's col2im."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "dagscope_nnkernels", "Dagscope's neural-network kernels in C.", -1, module_methods,
};

PyMODINIT_FUNC PyInit_dagscope_nnkernels(void)
{
    return PyModule_Create(&module_def);
}
