// fzwgpu: the CUDA C prelude of every kernel generated from WGSL (src/kernels/cuda.rs).
// It gives CUDA C++ the WGSL semantics the generated code relies on: value vectors
// with component-wise operators, integer division, modulo and shifts as WGSL defines
// them (no undefined behaviour), wrapping signed arithmetic, saturating float-to-int
// conversion, bit casts, and the subgroup operations of a full 32-lane warp.
typedef unsigned int uint;
typedef unsigned long long ullong;
typedef long long llong;

#define FI static __device__ __forceinline__

template <class T, int N> struct vec;
template <class T> struct alignas(2 * sizeof(T)) vec<T, 2> {
    T x, y;
    __device__ __forceinline__ T& operator[](uint i) { return i == 0u ? x : y; }
    __device__ __forceinline__ T operator[](uint i) const { return i == 0u ? x : y; }
};
template <class T> struct vec<T, 3> {
    T x, y, z;
    __device__ __forceinline__ T& operator[](uint i) { return i == 0u ? x : (i == 1u ? y : z); }
    __device__ __forceinline__ T operator[](uint i) const { return i == 0u ? x : (i == 1u ? y : z); }
};
template <class T> struct alignas(4 * sizeof(T)) vec<T, 4> {
    T x, y, z, w;
    __device__ __forceinline__ T& operator[](uint i) { return i == 0u ? x : (i == 1u ? y : (i == 2u ? z : w)); }
    __device__ __forceinline__ T operator[](uint i) const { return i == 0u ? x : (i == 1u ? y : (i == 2u ? z : w)); }
};
template <class T, int N> struct arr {
    T a[N];
};

template <int N, class T> FI vec<T, N> _splat(T v) {
    vec<T, N> r;
#pragma unroll
    for (int i = 0; i < N; i++) r[i] = v;
    return r;
}

#define VBIN(op)                                                                                    \
    template <class T, int N> FI vec<T, N> operator op(vec<T, N> a, vec<T, N> b) {                \
        vec<T, N> r;                                                                               \
        _Pragma("unroll") for (int i = 0; i < N; i++) r[i] = a[i] op b[i];                         \
        return r;                                                                                  \
    }                                                                                              \
    template <class T, int N> FI vec<T, N> operator op(vec<T, N> a, T b) {                        \
        vec<T, N> r;                                                                               \
        _Pragma("unroll") for (int i = 0; i < N; i++) r[i] = a[i] op b;                            \
        return r;                                                                                  \
    }                                                                                              \
    template <class T, int N> FI vec<T, N> operator op(T a, vec<T, N> b) {                        \
        vec<T, N> r;                                                                               \
        _Pragma("unroll") for (int i = 0; i < N; i++) r[i] = a op b[i];                            \
        return r;                                                                                  \
    }
VBIN(+) VBIN(-) VBIN(*) VBIN(/) VBIN(&) VBIN(|) VBIN(^)
#define VCMP(op)                                                                                    \
    template <class T, int N> FI vec<bool, N> operator op(vec<T, N> a, vec<T, N> b) {             \
        vec<bool, N> r;                                                                            \
        _Pragma("unroll") for (int i = 0; i < N; i++) r[i] = a[i] op b[i];                         \
        return r;                                                                                  \
    }
VCMP(==) VCMP(!=) VCMP(<) VCMP(<=) VCMP(>) VCMP(>=)
template <int N> FI vec<bool, N> operator&&(vec<bool, N> a, vec<bool, N> b) { return a & b; }
template <int N> FI vec<bool, N> operator||(vec<bool, N> a, vec<bool, N> b) { return a | b; }
template <class T, int N> FI vec<T, N> operator-(vec<T, N> a) {
    vec<T, N> r;
#pragma unroll
    for (int i = 0; i < N; i++) r[i] = -a[i];
    return r;
}
template <class T, int N> FI vec<T, N> operator~(vec<T, N> a) {
    vec<T, N> r;
#pragma unroll
    for (int i = 0; i < N; i++) r[i] = ~a[i];
    return r;
}
template <int N> FI vec<bool, N> operator!(vec<bool, N> a) {
    vec<bool, N> r;
#pragma unroll
    for (int i = 0; i < N; i++) r[i] = !a[i];
    return r;
}

// Component-wise application of scalar helpers to vectors.
#define VMAP1(f)                                                                                    \
    template <class T, int N> FI auto f(vec<T, N> a) -> vec<decltype(f(a.x)), N> {                 \
        vec<decltype(f(a.x)), N> r;                                                                \
        _Pragma("unroll") for (int i = 0; i < N; i++) r[i] = f(a[i]);                              \
        return r;                                                                                  \
    }
#define VMAP2(f)                                                                                    \
    template <class T, class U, int N> FI auto f(vec<T, N> a, vec<U, N> b) -> vec<decltype(f(a.x, b.x)), N> { \
        vec<decltype(f(a.x, b.x)), N> r;                                                           \
        _Pragma("unroll") for (int i = 0; i < N; i++) r[i] = f(a[i], b[i]);                        \
        return r;                                                                                  \
    }                                                                                              \
    template <class T, class U, int N> FI auto f(vec<T, N> a, U b) -> vec<decltype(f(a.x, b)), N> { \
        vec<decltype(f(a.x, b)), N> r;                                                             \
        _Pragma("unroll") for (int i = 0; i < N; i++) r[i] = f(a[i], b);                           \
        return r;                                                                                  \
    }
#define VMAP3(f)                                                                                    \
    template <class T, class U, class V, int N>                                                    \
    FI auto f(vec<T, N> a, vec<U, N> b, vec<V, N> c) -> vec<decltype(f(a.x, b.x, c.x)), N> {       \
        vec<decltype(f(a.x, b.x, c.x)), N> r;                                                      \
        _Pragma("unroll") for (int i = 0; i < N; i++) r[i] = f(a[i], b[i], c[i]);                  \
        return r;                                                                                  \
    }

// Integer arithmetic as WGSL defines it.
FI uint _div(uint a, uint b) { return b == 0u ? a : a / b; }
FI int _div(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
FI ullong _div(ullong a, ullong b) { return b == 0ull ? a : a / b; }
FI float _div(float a, float b) { return a / b; }
FI double _div(double a, double b) { return a / b; }
FI uint _mod(uint a, uint b) { return b == 0u ? 0u : a % b; }
FI int _mod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
FI ullong _mod(ullong a, ullong b) { return b == 0ull ? 0ull : a % b; }
FI float _mod(float a, float b) { return a - b * truncf(a / b); }
FI double _mod(double a, double b) { return a - b * trunc(a / b); }
FI uint _shl(uint a, uint b) { return a << (b & 31u); }
FI int _shl(int a, uint b) { return (int)((uint)a << (b & 31u)); }
FI ullong _shl(ullong a, uint b) { return a << (b & 63u); }
FI uint _shr(uint a, uint b) { return a >> (b & 31u); }
FI int _shr(int a, uint b) { return a >> (b & 31u); }
FI ullong _shr(ullong a, uint b) { return a >> (b & 63u); }
FI int _iadd(int a, int b) { return (int)((uint)a + (uint)b); }
FI int _isub(int a, int b) { return (int)((uint)a - (uint)b); }
FI int _imul(int a, int b) { return (int)((uint)a * (uint)b); }
FI int _ineg(int a) { return (int)(0u - (uint)a); }
VMAP2(_div) VMAP2(_mod) VMAP2(_shl) VMAP2(_shr) VMAP2(_iadd) VMAP2(_isub) VMAP2(_imul) VMAP1(_ineg)

// Math builtins.
FI uint _abs(uint a) { return a; }
FI int _abs(int a) { return a < 0 ? _ineg(a) : a; }
FI float _abs(float a) { return fabsf(a); }
FI double _abs(double a) { return fabs(a); }
FI uint _min(uint a, uint b) { return min(a, b); }
FI int _min(int a, int b) { return min(a, b); }
FI float _min(float a, float b) { return fminf(a, b); }
FI double _min(double a, double b) { return fmin(a, b); }
FI uint _max(uint a, uint b) { return max(a, b); }
FI int _max(int a, int b) { return max(a, b); }
FI float _max(float a, float b) { return fmaxf(a, b); }
FI double _max(double a, double b) { return fmax(a, b); }
template <class T> FI T _clamp(T x, T lo, T hi) { return _min(_max(x, lo), hi); }
FI float _floor(float a) { return floorf(a); }
FI double _floor(double a) { return floor(a); }
FI float _ceil(float a) { return ceilf(a); }
FI double _ceil(double a) { return ceil(a); }
FI float _round(float a) { return rintf(a); }
FI double _round(double a) { return rint(a); }
FI float _trunc(float a) { return truncf(a); }
FI double _trunc(double a) { return trunc(a); }
FI float _fract(float a) { return a - floorf(a); }
FI double _fract(double a) { return a - floor(a); }
FI float _sqrt(float a) { return sqrtf(a); }
FI double _sqrt(double a) { return sqrt(a); }
FI float _exp2(float a) { return exp2f(a); }
FI double _exp2(double a) { return exp2(a); }
FI float _log2(float a) { return log2f(a); }
FI double _log2(double a) { return log2(a); }
FI float _pow(float a, float b) { return powf(a, b); }
FI double _pow(double a, double b) { return pow(a, b); }
FI float _fma(float a, float b, float c) { return fmaf(a, b, c); }
FI double _fma(double a, double b, double c) { return fma(a, b, c); }
FI float _ldexp(float a, int e) { return ldexpf(a, e); }
FI double _ldexp(double a, int e) { return ldexp(a, e); }
FI float _sign(float a) { return a > 0.0f ? 1.0f : (a < 0.0f ? -1.0f : 0.0f); }
FI double _sign(double a) { return a > 0.0 ? 1.0 : (a < 0.0 ? -1.0 : 0.0); }
FI int _sign(int a) { return a > 0 ? 1 : (a < 0 ? -1 : 0); }
FI uint _popc(uint a) { return (uint)__popc(a); }
FI int _popc(int a) { return __popc((uint)a); }
FI uint _clz(uint a) { return (uint)__clz((int)a); }
FI int _clz(int a) { return __clz(a); }
FI uint _ctz(uint a) { return a == 0u ? 32u : (uint)(__ffs((int)a) - 1); }
FI int _ctz(int a) { return a == 0 ? 32 : __ffs(a) - 1; }
FI uint _flb(uint a) { return a == 0u ? 0xffffffffu : 31u - (uint)__clz((int)a); }
FI int _flb(int a) {
    uint u = a < 0 ? ~(uint)a : (uint)a;
    return u == 0u ? -1 : 31 - __clz((int)u);
}
FI uint _ftb(uint a) { return (uint)(__ffs((int)a) - 1); }
FI int _ftb(int a) { return __ffs(a) - 1; }
FI uint _rev(uint a) { return __brev(a); }
FI int _rev(int a) { return (int)__brev((uint)a); }
FI uint _extract(uint e, uint off, uint cnt) {
    uint o = min(off, 32u), c = min(cnt, 32u - o);
    return c == 0u ? 0u : (e >> o) & (c == 32u ? 0xffffffffu : ((1u << c) - 1u));
}
FI int _extract(int e, uint off, uint cnt) {
    uint o = min(off, 32u), c = min(cnt, 32u - o);
    if (c == 0u) return 0;
    return (int)((uint)e << (32u - o - c)) >> (32u - c);
}
FI uint _insert(uint e, uint n, uint off, uint cnt) {
    uint o = min(off, 32u), c = min(cnt, 32u - o);
    if (c == 0u) return e;
    uint m = (c == 32u ? 0xffffffffu : ((1u << c) - 1u)) << o;
    return (e & ~m) | ((n << o) & m);
}
FI int _insert(int e, int n, uint off, uint cnt) { return (int)_insert((uint)e, (uint)n, off, cnt); }
VMAP1(_abs) VMAP2(_min) VMAP2(_max) VMAP1(_floor) VMAP1(_ceil) VMAP1(_round) VMAP1(_trunc)
VMAP1(_fract) VMAP1(_sqrt) VMAP1(_exp2) VMAP1(_log2) VMAP2(_pow) VMAP3(_fma) VMAP2(_ldexp)
VMAP1(_sign) VMAP1(_popc) VMAP1(_clz) VMAP1(_ctz) VMAP1(_flb) VMAP1(_ftb) VMAP1(_rev)
template <class T, int N> FI vec<T, N> _clamp(vec<T, N> x, vec<T, N> lo, vec<T, N> hi) { return _min(_max(x, lo), hi); }
template <class T, int N> FI T _dot(vec<T, N> a, vec<T, N> b) {
    T s = a[0] * b[0];
#pragma unroll
    for (int i = 1; i < N; i++) s = s + a[i] * b[i];
    return s;
}
template <class T> FI T _select(T f, T t, bool c) { return c ? t : f; }
template <class T, int N> FI vec<T, N> _select(vec<T, N> f, vec<T, N> t, vec<bool, N> c) {
    vec<T, N> r;
#pragma unroll
    for (int i = 0; i < N; i++) r[i] = c[i] ? t[i] : f[i];
    return r;
}
template <int N> FI bool _all(vec<bool, N> v) {
    bool r = true;
#pragma unroll
    for (int i = 0; i < N; i++) r = r && v[i];
    return r;
}
template <int N> FI bool _any(vec<bool, N> v) {
    bool r = false;
#pragma unroll
    for (int i = 0; i < N; i++) r = r || v[i];
    return r;
}
FI bool _all(bool v) { return v; }
FI bool _any(bool v) { return v; }
FI bool _isnan(float a) { return isnan(a); }
FI bool _isnan(double a) { return isnan(a); }
FI bool _isinf(float a) { return isinf(a); }
FI bool _isinf(double a) { return isinf(a); }
VMAP1(_isnan) VMAP1(_isinf)

// Value conversions (WGSL: float to integer rounds toward zero and saturates, NaN
// gives 0; that is PTX's cvt.rzi, which these intrinsics are).
FI uint _cvt_uint(uint a) { return a; }
FI uint _cvt_uint(int a) { return (uint)a; }
FI uint _cvt_uint(bool a) { return a ? 1u : 0u; }
FI uint _cvt_uint(float a) { return __float2uint_rz(a); }
FI uint _cvt_uint(double a) { return __double2uint_rz(a); }
FI uint _cvt_uint(ullong a) { return (uint)a; }
FI uint _cvt_uint(llong a) { return (uint)a; }
FI int _cvt_int(uint a) { return (int)a; }
FI int _cvt_int(int a) { return a; }
FI int _cvt_int(bool a) { return a ? 1 : 0; }
FI int _cvt_int(float a) { return __float2int_rz(a); }
FI int _cvt_int(double a) { return __double2int_rz(a); }
FI int _cvt_int(ullong a) { return (int)a; }
FI int _cvt_int(llong a) { return (int)a; }
FI float _cvt_float(uint a) { return __uint2float_rn(a); }
FI float _cvt_float(int a) { return __int2float_rn(a); }
FI float _cvt_float(bool a) { return a ? 1.0f : 0.0f; }
FI float _cvt_float(float a) { return a; }
FI float _cvt_float(double a) { return __double2float_rn(a); }
FI double _cvt_double(uint a) { return __uint2double_rn(a); }
FI double _cvt_double(int a) { return __int2double_rn(a); }
FI double _cvt_double(bool a) { return a ? 1.0 : 0.0; }
FI double _cvt_double(float a) { return (double)a; }
FI double _cvt_double(double a) { return a; }
FI bool _cvt_bool(uint a) { return a != 0u; }
FI bool _cvt_bool(int a) { return a != 0; }
FI bool _cvt_bool(bool a) { return a; }
FI bool _cvt_bool(float a) { return a != 0.0f; }
FI bool _cvt_bool(double a) { return a != 0.0; }
FI ullong _cvt_ullong(uint a) { return (ullong)a; }
FI ullong _cvt_ullong(int a) { return (ullong)(llong)a; }
FI ullong _cvt_ullong(ullong a) { return a; }
FI ullong _cvt_ullong(llong a) { return (ullong)a; }
FI ullong _cvt_ullong(float a) { return __float2ull_rz(a); }
FI ullong _cvt_ullong(double a) { return __double2ull_rz(a); }
FI llong _cvt_llong(uint a) { return (llong)a; }
FI llong _cvt_llong(int a) { return (llong)a; }
FI llong _cvt_llong(ullong a) { return (llong)a; }
FI llong _cvt_llong(llong a) { return a; }
FI llong _cvt_llong(float a) { return __float2ll_rz(a); }
FI llong _cvt_llong(double a) { return __double2ll_rz(a); }
VMAP1(_cvt_uint) VMAP1(_cvt_int) VMAP1(_cvt_float) VMAP1(_cvt_double) VMAP1(_cvt_bool)
VMAP1(_cvt_ullong) VMAP1(_cvt_llong)

template <class T, class S> FI T _bitcast(S s) {
    static_assert(sizeof(T) == sizeof(S), "bitcast between types of different sizes");
    union {
        S s;
        T t;
    } u;
    u.s = s;
    return u.t;
}

// Loads through the read-only data path (bindings the kernel never writes).
template <class T> FI T _ldg(const T* p) {
    if constexpr (sizeof(T) == 16 && alignof(T) == 16) {
        uint4 v = __ldg((const uint4*)p);
        return _bitcast<T>(v);
    } else if constexpr (sizeof(T) == 8 && alignof(T) == 8) {
        uint2 v = __ldg((const uint2*)p);
        return _bitcast<T>(v);
    } else if constexpr (sizeof(T) == 4) {
        uint v = __ldg((const uint*)p);
        return _bitcast<T>(v);
    } else {
        return *p;
    }
}

FI uint _ci(uint i, uint n) { return min(i, n - 1u); }
template <class T> FI T _zs(bool inside, T v) { return inside ? v : T{}; }

// Atomics (WGSL atomics are relaxed).
template <class T> FI T _aload(T* p) { return *(volatile T*)p; }
template <class T> FI void _astore(T* p, T v) { *(volatile T*)p = v; }

// Subgroups: WGSL requires subgroup operations in subgroup-uniform control flow, and
// every workgroup is a whole number of warps, so all 32 lanes take part.
#define FULL 0xffffffffu
FI uint _lane() { uint l; asm volatile("mov.u32 %0, %%laneid;" : "=r"(l)); return l; }
FI uint _shfl(uint v, uint l) { return __shfl_sync(FULL, v, (int)l); }
FI int _shfl(int v, uint l) { return __shfl_sync(FULL, v, (int)l); }
FI float _shfl(float v, uint l) { return __shfl_sync(FULL, v, (int)l); }
FI double _shfl(double v, uint l) { return __shfl_sync(FULL, v, (int)l); }
FI bool _shfl(bool v, uint l) { return __shfl_sync(FULL, (int)v, (int)l) != 0; }
FI uint _shfl_xor(uint v, uint m) { return __shfl_xor_sync(FULL, v, (int)m); }
FI int _shfl_xor(int v, uint m) { return __shfl_xor_sync(FULL, v, (int)m); }
FI float _shfl_xor(float v, uint m) { return __shfl_xor_sync(FULL, v, (int)m); }
FI double _shfl_xor(double v, uint m) { return __shfl_xor_sync(FULL, v, (int)m); }
FI bool _shfl_xor(bool v, uint m) { return __shfl_xor_sync(FULL, (int)v, (int)m) != 0; }
FI uint _shfl_up(uint v, uint d) { return __shfl_up_sync(FULL, v, d); }
FI int _shfl_up(int v, uint d) { return __shfl_up_sync(FULL, v, d); }
FI float _shfl_up(float v, uint d) { return __shfl_up_sync(FULL, v, d); }
FI double _shfl_up(double v, uint d) { return __shfl_up_sync(FULL, v, d); }
FI uint _shfl_down(uint v, uint d) { return __shfl_down_sync(FULL, v, d); }
FI int _shfl_down(int v, uint d) { return __shfl_down_sync(FULL, v, d); }
FI float _shfl_down(float v, uint d) { return __shfl_down_sync(FULL, v, d); }
FI double _shfl_down(double v, uint d) { return __shfl_down_sync(FULL, v, d); }
VMAP2(_shfl) VMAP2(_shfl_xor) VMAP2(_shfl_up) VMAP2(_shfl_down)
template <class T> FI T _bcast_first(T v) { return _shfl(v, 0u); }
FI vec<uint, 4> _ballot(bool p) { return vec<uint, 4>{__ballot_sync(FULL, p), 0u, 0u, 0u}; }
FI bool _sg_all(bool p) { return __all_sync(FULL, p) != 0; }
FI bool _sg_any(bool p) { return __any_sync(FULL, p) != 0; }
FI uint _sg_add(uint v) { return __reduce_add_sync(FULL, v); }
FI int _sg_add(int v) { return __reduce_add_sync(FULL, v); }
FI uint _sg_min(uint v) { return __reduce_min_sync(FULL, v); }
FI int _sg_min(int v) { return __reduce_min_sync(FULL, v); }
FI uint _sg_max(uint v) { return __reduce_max_sync(FULL, v); }
FI int _sg_max(int v) { return __reduce_max_sync(FULL, v); }
FI uint _sg_and(uint v) { return __reduce_and_sync(FULL, v); }
FI int _sg_and(int v) { return (int)__reduce_and_sync(FULL, (uint)v); }
FI uint _sg_or(uint v) { return __reduce_or_sync(FULL, v); }
FI int _sg_or(int v) { return (int)__reduce_or_sync(FULL, (uint)v); }
FI uint _sg_xor(uint v) { return __reduce_xor_sync(FULL, v); }
FI int _sg_xor(int v) { return (int)__reduce_xor_sync(FULL, (uint)v); }
#define SG_TREE(name, T, op)                                                                        \
    FI T name(T v) {                                                                               \
        _Pragma("unroll") for (uint m = 16u; m > 0u; m >>= 1) v = op(v, _shfl_xor(v, m));          \
        return v;                                                                                  \
    }
#define ADD(a, b) ((a) + (b))
#define MUL(a, b) ((a) * (b))
SG_TREE(_sg_add, float, ADD) SG_TREE(_sg_add, double, ADD) SG_TREE(_sg_min, float, _min)
SG_TREE(_sg_min, double, _min) SG_TREE(_sg_max, float, _max) SG_TREE(_sg_max, double, _max)
SG_TREE(_sg_mul, uint, MUL) SG_TREE(_sg_mul, int, _imul) SG_TREE(_sg_mul, float, MUL) SG_TREE(_sg_mul, double, MUL)
#define SG_SCAN(name, T, op)                                                                        \
    FI T name(T v) {                                                                               \
        uint l = _lane();                                                                          \
        _Pragma("unroll") for (uint d = 1u; d < 32u; d <<= 1) {                                    \
            T t = _shfl_up(v, d);                                                                  \
            if (l >= d) v = op(v, t);                                                              \
        }                                                                                          \
        return v;                                                                                  \
    }
#define BAND(a, b) ((a) & (b))
#define BOR(a, b) ((a) | (b))
#define BXOR(a, b) ((a) ^ (b))
SG_SCAN(_sg_iscan_add, uint, ADD) SG_SCAN(_sg_iscan_add, int, _iadd) SG_SCAN(_sg_iscan_add, float, ADD)
SG_SCAN(_sg_iscan_add, double, ADD) SG_SCAN(_sg_iscan_mul, uint, MUL) SG_SCAN(_sg_iscan_mul, int, _imul)
SG_SCAN(_sg_iscan_mul, float, MUL) SG_SCAN(_sg_iscan_mul, double, MUL)
template <class T> FI T _sg_escan_add(T v) {
    T t = _shfl_up(_sg_iscan_add(v), 1u);
    return _lane() == 0u ? T(0) : t;
}
template <class T> FI T _sg_escan_mul(T v) {
    T t = _shfl_up(_sg_iscan_mul(v), 1u);
    return _lane() == 0u ? T(1) : t;
}
VMAP1(_sg_add) VMAP1(_sg_min) VMAP1(_sg_max) VMAP1(_sg_and) VMAP1(_sg_or) VMAP1(_sg_xor) VMAP1(_sg_mul)
VMAP1(_sg_iscan_add) VMAP1(_sg_iscan_mul) VMAP1(_sg_escan_add) VMAP1(_sg_escan_mul) VMAP1(_bcast_first)
