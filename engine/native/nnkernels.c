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
#include <math.h>
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

/* ---- batch norm (engine/ops/normalization.py, training: the batch's statistics) ------------------

   x is (N, C, L...) C-contiguous, so channel c is N runs of L values, C * L apart. numpy's
   np.add.reduce over every axis but 1 (np.mean's and np.sum's) adds to each channel's 0.0 the
   pairwise sum of each run in turn (the runs' axes coalesce into one inner loop of L values):
   channel_sum below, with pairwise() numpy's pairwise_sum (loops_utils.h.src: below 8 values one
   by one from -0.0, up to 128 eight accumulators then the tail, above that two halves, the first
   a multiple of 8 long) in the array's own type. Every value summed is first computed into a
   scratch run with the numpy expression's operations, each rounded to the dtype, in its order. */

#define PW_BLOCKSIZE 128

#define PAIRWISE(TYPE)                                                                               \
static TYPE pairwise_##TYPE(const TYPE *a, Py_ssize_t n)                                             \
{                                                                                                    \
    if (n < 8) {                                                                                     \
        TYPE res = -0.0;                                                                             \
        for (Py_ssize_t i = 0; i < n; i++)                                                           \
            res += a[i];                                                                             \
        return res;                                                                                  \
    }                                                                                                \
    if (n <= PW_BLOCKSIZE) {                                                                         \
        TYPE r[8];                                                                                   \
        for (int j = 0; j < 8; j++)                                                                  \
            r[j] = a[j];                                                                             \
        Py_ssize_t i;                                                                                \
        for (i = 8; i < n - (n % 8); i += 8)                                                         \
            for (int j = 0; j < 8; j++)                                                              \
                r[j] += a[i + j];                                                                    \
        TYPE res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));                \
        for (; i < n; i++)                                                                           \
            res += a[i];                                                                             \
        return res;                                                                                  \
    }                                                                                                \
    Py_ssize_t n2 = n / 2;                                                                           \
    n2 -= n2 % 8;                                                                                    \
    TYPE left = pairwise_##TYPE(a, n2);                                                              \
    return left + pairwise_##TYPE(a + n2, n - n2);                                                   \
}

PAIRWISE(float)
PAIRWISE(double)

/* For each of the N runs of channel c: `run` = the run's offset, FILL computes tmp[i] for
   i < L from it, and the total adds the run's pairwise sum. */
#define CHANNEL_SUM(TYPE, total, FILL)                                                               \
    {                                                                                                \
        total = 0;                                                                                   \
        for (Py_ssize_t s = 0; s < n; s++) {                                                         \
            const Py_ssize_t run = (s * c + ch) * l;                                                 \
            for (Py_ssize_t i = 0; i < l; i++) {                                                     \
                FILL;                                                                                \
            }                                                                                        \
            total += pairwise_##TYPE(tmp, l);                                                        \
        }                                                                                            \
    }

/* _batch_norm_forward (training): np.mean's sum over the channel divided by its count as a
   float64 (np.intp) divisor, cast back; var likewise of (x - mean) ** 2; then
   (x - mean) * (1 / sqrt(var + eps)) [* weight] [+ bias]. */
#define BN_FORWARD(TYPE, SQRT)                                                                       \
    for (Py_ssize_t ch = 0; ch < c && ok; ch++) {                                                    \
        TYPE sum, sq;                                                                                \
        CHANNEL_SUM(TYPE, sum, tmp[i] = x[run + i])                                                  \
        const TYPE mean = (TYPE)((double)sum / (double)count);                                       \
        CHANNEL_SUM(TYPE, sq, TYPE d = x[run + i] - mean; tmp[i] = d * d)                            \
        const TYPE var = (TYPE)((double)sq / (double)count);                                         \
        const TYPE rstd = (TYPE)1 / SQRT(var + (TYPE)eps);                                           \
        for (Py_ssize_t s = 0; s < n; s++) {                                                         \
            const Py_ssize_t run = (s * c + ch) * l;                                                 \
            for (Py_ssize_t i = 0; i < l; i++) {                                                     \
                TYPE v = (x[run + i] - mean) * rstd;                                                 \
                if (w) v = v * w[ch];                                                                \
                if (b) v = v + b[ch];                                                                \
                out[run + i] = v;                                                                    \
            }                                                                                        \
        }                                                                                            \
    }

/* _batch_norm_vjp (training) as its registered ops compute it on arrays: the moments again with
   _mean_forward (the sum divided by the count in the dtype), rstd = 1.0 / sqrt(var + eps),
   xhat = (x - mean) * rstd, gx = g [* weight]; grad_x = rstd * ((gx - mean(gx)) - xhat *
   mean(gx * xhat)), grad_weight = sum(g * xhat), grad_bias = sum(g). */
#define BN_BACKWARD(TYPE, SQRT)                                                                      \
    for (Py_ssize_t ch = 0; ch < c; ch++) {                                                          \
        const TYPE cnt = (TYPE)count;                                                                \
        TYPE sum, sq, sum_gx, sum_gx_xhat, sum_g_xhat, sum_g;                                        \
        CHANNEL_SUM(TYPE, sum, tmp[i] = x[run + i])                                                  \
        const TYPE mean = sum / cnt;                                                                 \
        CHANNEL_SUM(TYPE, sq, TYPE d = x[run + i] - mean; tmp[i] = d * d)                            \
        const TYPE var = sq / cnt;                                                                   \
        const TYPE rstd = (TYPE)1.0 / SQRT(var + (TYPE)eps);                                         \
        const TYPE wc = w ? w[ch] : 0;                                                               \
        CHANNEL_SUM(TYPE, sum_gx, tmp[i] = w ? g[run + i] * wc : g[run + i])                         \
        const TYPE mean_gx = sum_gx / cnt;                                                           \
        CHANNEL_SUM(TYPE, sum_gx_xhat,                                                               \
                    TYPE gxv = w ? g[run + i] * wc : g[run + i];                                     \
                    tmp[i] = gxv * ((x[run + i] - mean) * rstd))                                     \
        const TYPE mean_gx_xhat = sum_gx_xhat / cnt;                                                 \
        if (gw) {                                                                                    \
            CHANNEL_SUM(TYPE, sum_g_xhat, tmp[i] = g[run + i] * ((x[run + i] - mean) * rstd))        \
            gw[ch] = sum_g_xhat;                                                                     \
        }                                                                                            \
        if (gb) {                                                                                    \
            CHANNEL_SUM(TYPE, sum_g, tmp[i] = g[run + i])                                            \
            gb[ch] = sum_g;                                                                          \
        }                                                                                            \
        for (Py_ssize_t s = 0; s < n; s++) {                                                         \
            const Py_ssize_t run = (s * c + ch) * l;                                                 \
            for (Py_ssize_t i = 0; i < l; i++) {                                                     \
                TYPE gxv = w ? g[run + i] * wc : g[run + i];                                         \
                TYPE xhat = (x[run + i] - mean) * rstd;                                              \
                gx_out[run + i] = rstd * ((gxv - mean_gx) - xhat * mean_gx_xhat);                    \
            }                                                                                        \
        }                                                                                            \
    }

/* The (N, C, L) view of a C-contiguous float buffer of at least 2 dimensions. One channel's N runs
   are one run of N * L values (numpy's iterator coalesces them: its sum is one pairwise sum). */
static int ncl(Py_buffer *v, Py_ssize_t *n, Py_ssize_t *c, Py_ssize_t *l)
{
    *n = v->shape[0], *c = v->shape[1], *l = 1;
    for (int d = 2; d < v->ndim; d++)
        *l *= v->shape[d];
    if (*c == 1)
        *l *= *n, *n = 1;
    return 0;
}

/* An optional per-channel vector (None: absent): a C-contiguous 1-d array of c values of itemsize. */
static int channel_vector(PyObject *obj, Py_buffer *v, int writable, Py_ssize_t c, Py_ssize_t itemsize,
                          const char *what, int *present)
{
    *present = obj != Py_None;
    if (!*present)
        return 0;
    if (float_array(obj, v, writable, 1, what) < 0)
        return -1;
    if (v->shape[0] != c || v->itemsize != itemsize) {
        PyBuffer_Release(v);
        PyErr_Format(PyExc_ValueError, "%s: a per-channel vector of another size or dtype", what);
        return -1;
    }
    return 0;
}

static int any_float_array(PyObject *array, Py_buffer *view, int writable, const char *what)
{
    if (PyObject_GetBuffer(array, view, (writable ? PyBUF_WRITABLE : 0) | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *f = view->format ? view->format : "";
    char kind = f[f[0] == '=' || f[0] == '<' ? 1 : 0];
    if (view->ndim < 2 || !((kind == 'f' && view->itemsize == 4) || (kind == 'd' && view->itemsize == 8))) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "%s: expected a C-contiguous float32 or float64 array of 2 or more dims", what);
        return -1;
    }
    return 0;
}

static int same_shape(Py_buffer *a, Py_buffer *b)
{
    if (a->ndim != b->ndim || a->itemsize != b->itemsize)
        return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d])
            return 0;
    return 1;
}

/* batch_norm_forward(x, weight|None, bias|None, eps, out) */
static PyObject *batch_norm_forward(PyObject *module, PyObject *args)
{
    PyObject *xo, *wo, *bo, *oo;
    double eps;
    if (!PyArg_ParseTuple(args, "OOOdO", &xo, &wo, &bo, &eps, &oo))
        return NULL;
    Py_buffer xv, wv, bv, ov;
    int hw = 0, hb = 0, ok = 1;
    if (any_float_array(xo, &xv, 0, "batch_norm_forward") < 0)
        return NULL;
    Py_ssize_t n, c, l;
    ncl(&xv, &n, &c, &l);
    if (channel_vector(wo, &wv, 0, c, xv.itemsize, "batch_norm_forward", &hw) < 0)
        goto fail_x;
    if (channel_vector(bo, &bv, 0, c, xv.itemsize, "batch_norm_forward", &hb) < 0)
        goto fail_w;
    if (any_float_array(oo, &ov, 1, "batch_norm_forward") < 0)
        goto fail_b;
    const Py_ssize_t count = n * l;
    void *tmp = same_shape(&xv, &ov) && count > 0 ? PyMem_RawMalloc((size_t)(l ? l : 1) * xv.itemsize) : NULL;
    if (tmp == NULL) {
        if (!same_shape(&xv, &ov) || count <= 0)
            PyErr_SetString(PyExc_ValueError, "batch_norm_forward: out is not x's shape, or x has no values");
        else
            PyErr_NoMemory();
        PyBuffer_Release(&ov);
        goto fail_b;
    }
    Py_BEGIN_ALLOW_THREADS
    if (xv.itemsize == 4) {
        const float *x = xv.buf, *w = hw ? wv.buf : NULL, *b = hb ? bv.buf : NULL;
        float *out = ov.buf;
        float *tmp_ = tmp;
#define tmp tmp_
        BN_FORWARD(float, sqrtf)
#undef tmp
    } else {
        const double *x = xv.buf, *w = hw ? wv.buf : NULL, *b = hb ? bv.buf : NULL;
        double *out = ov.buf;
        double *tmp_ = tmp;
#define tmp tmp_
        BN_FORWARD(double, sqrt)
#undef tmp
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(tmp);
    PyBuffer_Release(&ov);
    if (hb) PyBuffer_Release(&bv);
    if (hw) PyBuffer_Release(&wv);
    PyBuffer_Release(&xv);
    Py_RETURN_NONE;
fail_b:
    if (hb) PyBuffer_Release(&bv);
fail_w:
    if (hw) PyBuffer_Release(&wv);
fail_x:
    PyBuffer_Release(&xv);
    return NULL;
}

/* batch_norm_backward(g, x, weight|None, eps, grad_x, grad_weight|None, grad_bias|None) */
static PyObject *batch_norm_backward(PyObject *module, PyObject *args)
{
    PyObject *go, *xo, *wo, *gxo, *gwo, *gbo;
    double eps;
    if (!PyArg_ParseTuple(args, "OOOdOOO", &go, &xo, &wo, &eps, &gxo, &gwo, &gbo))
        return NULL;
    Py_buffer gv, xv, wv, gxv, gwv, gbv;
    int hw = 0, hgw = 0, hgb = 0;
    if (any_float_array(xo, &xv, 0, "batch_norm_backward") < 0)
        return NULL;
    if (any_float_array(go, &gv, 0, "batch_norm_backward") < 0)
        goto fail_x;
    if (any_float_array(gxo, &gxv, 1, "batch_norm_backward") < 0)
        goto fail_g;
    Py_ssize_t n, c, l;
    ncl(&xv, &n, &c, &l);
    if (channel_vector(wo, &wv, 0, c, xv.itemsize, "batch_norm_backward", &hw) < 0)
        goto fail_gx;
    if (channel_vector(gwo, &gwv, 1, c, xv.itemsize, "batch_norm_backward", &hgw) < 0)
        goto fail_w;
    if (channel_vector(gbo, &gbv, 1, c, xv.itemsize, "batch_norm_backward", &hgb) < 0)
        goto fail_gw;
    const Py_ssize_t count = n * l;
    void *tmp = same_shape(&xv, &gv) && same_shape(&xv, &gxv) && count > 0
                ? PyMem_RawMalloc((size_t)l * xv.itemsize) : NULL;
    if (tmp == NULL) {
        if (!same_shape(&xv, &gv) || !same_shape(&xv, &gxv) || count <= 0)
            PyErr_SetString(PyExc_ValueError, "batch_norm_backward: g, x and grad_x differ in shape, or x has no values");
        else
            PyErr_NoMemory();
        goto fail_gb;
    }
    Py_BEGIN_ALLOW_THREADS
    if (xv.itemsize == 4) {
        const float *g = gv.buf, *x = xv.buf, *w = hw ? wv.buf : NULL;
        float *gx_out = gxv.buf, *gw = hgw ? gwv.buf : NULL, *gb = hgb ? gbv.buf : NULL;
        float *tmp_ = tmp;
#define tmp tmp_
        BN_BACKWARD(float, sqrtf)
#undef tmp
    } else {
        const double *g = gv.buf, *x = xv.buf, *w = hw ? wv.buf : NULL;
        double *gx_out = gxv.buf, *gw = hgw ? gwv.buf : NULL, *gb = hgb ? gbv.buf : NULL;
        double *tmp_ = tmp;
#define tmp tmp_
        BN_BACKWARD(double, sqrt)
#undef tmp
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(tmp);
    if (hgb) PyBuffer_Release(&gbv);
    if (hgw) PyBuffer_Release(&gwv);
    if (hw) PyBuffer_Release(&wv);
    PyBuffer_Release(&gxv);
    PyBuffer_Release(&gv);
    PyBuffer_Release(&xv);
    Py_RETURN_NONE;
fail_gb:
    if (hgb) PyBuffer_Release(&gbv);
fail_gw:
    if (hgw) PyBuffer_Release(&gwv);
fail_w:
    if (hw) PyBuffer_Release(&wv);
fail_gx:
    PyBuffer_Release(&gxv);
fail_g:
    PyBuffer_Release(&gv);
fail_x:
    PyBuffer_Release(&xv);
    return NULL;
}

/* channel_moments(x, correction, out): reduce.py's moments over every axis but 1, per channel into
   out (C,): correction < 0, _mean_forward's mean (the sum divided by the count in the dtype);
   else np.var's (ddof = correction): its mean divided by the count as a float64 (np.intp)
   divisor and cast back, the sum of (x - mean) ** 2 divided likewise by count - ddof. */
#define MOMENTS(TYPE)                                                                                \
    for (Py_ssize_t ch = 0; ch < c; ch++) {                                                          \
        TYPE sum, sq;                                                                                \
        CHANNEL_SUM(TYPE, sum, tmp[i] = x[run + i])                                                  \
        if (correction < 0) {                                                                        \
            out[ch] = sum / (TYPE)count;                                                             \
            continue;                                                                                \
        }                                                                                            \
        const TYPE mean = (TYPE)((double)sum / (double)count);                                       \
        CHANNEL_SUM(TYPE, sq, TYPE d = x[run + i] - mean; tmp[i] = d * d)                            \
        out[ch] = (TYPE)((double)sq / (double)(count - correction));                                 \
    }

static PyObject *channel_moments(PyObject *module, PyObject *args)
{
    PyObject *xo, *oo;
    Py_ssize_t correction;
    if (!PyArg_ParseTuple(args, "OnO", &xo, &correction, &oo))
        return NULL;
    Py_buffer xv, ov;
    int present;
    if (any_float_array(xo, &xv, 0, "channel_moments") < 0)
        return NULL;
    Py_ssize_t n, c, l;
    ncl(&xv, &n, &c, &l);
    if (channel_vector(oo, &ov, 1, c, xv.itemsize, "channel_moments", &present) < 0 || !present) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "channel_moments: out is required");
        PyBuffer_Release(&xv);
        return NULL;
    }
    const Py_ssize_t count = n * l;
    void *tmp = count > 0 && count > correction ? PyMem_RawMalloc((size_t)l * xv.itemsize) : NULL;
    if (tmp == NULL) {
        if (count <= 0 || count <= correction)
            PyErr_SetString(PyExc_ValueError, "channel_moments: no values, or no degrees of freedom");
        else
            PyErr_NoMemory();
        PyBuffer_Release(&ov);
        PyBuffer_Release(&xv);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    if (xv.itemsize == 4) {
        const float *x = xv.buf;
        float *out = ov.buf, *tmp_ = tmp;
#define tmp tmp_
        MOMENTS(float)
#undef tmp
    } else {
        const double *x = xv.buf;
        double *out = ov.buf, *tmp_ = tmp;
#define tmp tmp_
        MOMENTS(double)
#undef tmp
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(tmp);
    PyBuffer_Release(&ov);
    PyBuffer_Release(&xv);
    Py_RETURN_NONE;
}

/* ---- max pooling (engine/ops/nn.py's max_pool2d and max_pool2d_indices) -------------------------

   PyTorch's rule (ATen's cpu_max_pool), as the numpy reference in nn.py applies it: each window
   clipped to the image (padding and ceil_mode's overhang never win), the first maximum wins, a NaN
   beats every number and a later NaN an earlier one, and a window of -inf gives its first position
   in the image. The value is the winner's (so a -0.0 before a 0.0 stays -0.0), the index is
   h * W + w. Values and indices in one pass; comparisons round nothing: the same bits. */
#define MAX_POOL(TYPE)                                                                                \
    for (Py_ssize_t plane = 0; plane < planes; plane++) {                                             \
        const TYPE *img = (const TYPE *)xv.buf + plane * h * w;                                       \
        TYPE *o = (TYPE *)ov.buf + plane * oh * ow;                                                   \
        long long *ix = iv.buf ? (long long *)iv.buf + plane * oh * ow : NULL;                        \
        for (Py_ssize_t i = 0; i < oh; i++) {                                                         \
            Py_ssize_t y0 = i * sh - ph, y1 = y0 + kh < h ? y0 + kh : h;                              \
            y0 = y0 > 0 ? y0 : 0;                                                                     \
            for (Py_ssize_t j = 0; j < ow; j++) {                                                     \
                Py_ssize_t z0 = j * sw - pw, z1 = z0 + kw < w ? z0 + kw : w;                          \
                z0 = z0 > 0 ? z0 : 0;                                                                 \
                TYPE best = -(TYPE)INFINITY;                                                          \
                Py_ssize_t at = y0 * w + z0;                                                          \
                for (Py_ssize_t y = y0; y < y1; y++)                                                  \
                    for (Py_ssize_t z = z0; z < z1; z++) {                                            \
                        TYPE val = img[y * w + z];                                                    \
                        if (val > best || val != val) {                                               \
                            best = val;                                                               \
                            at = y * w + z;                                                           \
                        }                                                                             \
                    }                                                                                 \
                o[i * ow + j] = best;                                                                 \
                if (ix)                                                                               \
                    ix[i * ow + j] = at;                                                              \
            }                                                                                         \
        }                                                                                             \
    }

static PyObject *max_pool2d(PyObject *module, PyObject *args)
{
    PyObject *x, *out, *index;
    Py_ssize_t kh, kw, sh, sw, ph, pw;
    if (!PyArg_ParseTuple(args, "OnnnnnnOO", &x, &kh, &kw, &sh, &sw, &ph, &pw, &out, &index))
        return NULL;
    Py_buffer xv, ov, iv = {0};
    if (float_array(x, &xv, 0, 4, "max_pool2d") < 0)
        return NULL;
    if (float_array(out, &ov, 1, 4, "max_pool2d") < 0) {
        PyBuffer_Release(&xv);
        return NULL;
    }
    if (index != Py_None) {
        if (PyObject_GetBuffer(index, &iv, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            PyBuffer_Release(&ov);
            PyBuffer_Release(&xv);
            return NULL;
        }
        const char *f = iv.format ? iv.format : "";
        char kind = f[f[0] == '=' || f[0] == '<' ? 1 : 0];
        if (iv.ndim != 4 || iv.itemsize != 8 || !(kind == 'q' || kind == 'l')
            || memcmp(iv.shape, ov.shape, 4 * sizeof(Py_ssize_t)) != 0) {
            PyBuffer_Release(&iv);
            PyBuffer_Release(&ov);
            PyBuffer_Release(&xv);
            return PyErr_Format(PyExc_TypeError, "max_pool2d: index must be a C-contiguous int64 array shaped as out");
        }
    }
    Py_ssize_t h = xv.shape[2], w = xv.shape[3], oh = ov.shape[2], ow = ov.shape[3];
    Py_ssize_t planes = xv.shape[0] * xv.shape[1];
    int fits = ov.itemsize == xv.itemsize && ov.shape[0] == xv.shape[0] && ov.shape[1] == xv.shape[1]
               && kh > 0 && kw > 0 && sh > 0 && sw > 0 && ph >= 0 && pw >= 0
               && (oh == 0 || (oh - 1) * sh - ph < h) && (ow == 0 || (ow - 1) * sw - pw < w);
    if (!fits) {
        if (iv.buf)
            PyBuffer_Release(&iv);
        PyBuffer_Release(&ov);
        PyBuffer_Release(&xv);
        return PyErr_Format(PyExc_ValueError, "max_pool2d: the output does not fit the image and window");
    }
    Py_BEGIN_ALLOW_THREADS
    if (xv.itemsize == 4) {
        MAX_POOL(float)
    } else {
        MAX_POOL(double)
    }
    Py_END_ALLOW_THREADS
    if (iv.buf)
        PyBuffer_Release(&iv);
    PyBuffer_Release(&ov);
    PyBuffer_Release(&xv);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"col2im_add", col2im_add, METH_VARARGS,
     "col2im_add(cols (N, OH, OW, kh, kw, C), padded (N, H', W', C), stride_h, stride_w): conv2d's col2im."},
    {"batch_norm_forward", batch_norm_forward, METH_VARARGS,
     "batch_norm_forward(x, weight|None, bias|None, eps, out): normalization.py's training forward."},
    {"batch_norm_backward", batch_norm_backward, METH_VARARGS,
     "batch_norm_backward(g, x, weight|None, eps, grad_x, grad_weight|None, grad_bias|None): its vjp."},
    {"channel_moments", channel_moments, METH_VARARGS,
     "channel_moments(x, correction, out): the mean (correction < 0) or np.var per channel (dim 1)."},
    {"max_pool2d", max_pool2d, METH_VARARGS,
     "max_pool2d(x (N, C, H, W), kh, kw, sh, sw, ph, pw, out (N, C, OH, OW), index int64|None): values and argmax."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "dagscope_nnkernels", "Dagscope's neural-network kernels in C.", -1, module_methods,
};

PyMODINIT_FUNC PyInit_dagscope_nnkernels(void)
{
    return PyModule_Create(&module_def);
}
