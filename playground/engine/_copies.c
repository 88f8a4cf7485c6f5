/* Copies of one object with a few fields changed, made in one call (see copies.py).
 *
 * A ReplicaSet's batch of pods and their entries in the scheduling queue are objects of slotted
 * classes (dataclass(slots=True)) that differ from each other in two or three fields. Their
 * generated __init__ stores every field from Python, a microsecond a pod at 150,000 pods; a copy
 * takes the fields' references as they are in the original and stores only the ones that differ.
 *
 * copy_each(original, names, columns): for k in range(len(columns[0])), a copy of `original` (each
 * slot's reference, as copy.copy of a slotted object takes them) with names[i] set to
 * columns[i][k] (through setattr, so a class's own descriptors apply). The original's class must
 * keep its instance fields in slots only: no __dict__, no variable size.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

static int copyable(PyTypeObject *type)
{
    return (type->tp_flags & Py_TPFLAGS_HEAPTYPE) && type->tp_dictoffset == 0 && type->tp_itemsize == 0;
}

static PyObject *copy_slots(PyObject *original)
{
    PyTypeObject *type = Py_TYPE(original);
    PyObject *copy = type->tp_alloc(type, 0);
    if (copy == NULL)
        return NULL;
    for (PyTypeObject *t = type; t != NULL && t != &PyBaseObject_Type; t = t->tp_base) {
        for (PyMemberDef *m = t->tp_members; m != NULL && m->name != NULL; m++) {
            if (m->type != T_OBJECT_EX || (m->flags & READONLY))
                continue;
            PyObject *value = *(PyObject **)((char *)original + m->offset);
            Py_XINCREF(value);
            *(PyObject **)((char *)copy + m->offset) = value;
        }
    }
    return copy;
}

static PyObject *copy_each(PyObject *self, PyObject *args)
{
    PyObject *original, *names, *columns;
    if (!PyArg_ParseTuple(args, "OO!O!:copy_each", &original, &PyTuple_Type, &names, &PyTuple_Type, &columns))
        return NULL;
    PyTypeObject *type = Py_TYPE(original);
    for (PyTypeObject *t = type; t != NULL && t != &PyBaseObject_Type; t = t->tp_base) {
        if (!copyable(t)) {
            PyErr_Format(PyExc_TypeError, "copy_each: %s keeps fields outside __slots__", type->tp_name);
            return NULL;
        }
    }
    Py_ssize_t fields = PyTuple_GET_SIZE(names);
    if (fields == 0 || PyTuple_GET_SIZE(columns) != fields) {
        PyErr_SetString(PyExc_ValueError, "copy_each: one column per name, at least one");
        return NULL;
    }
    PyObject *fast[fields];
    Py_ssize_t count = -1;
    int failed = 0;
    for (Py_ssize_t i = 0; i < fields; i++) {
        fast[i] = NULL;
        if (failed)
            continue;
        if (!PyUnicode_Check(PyTuple_GET_ITEM(names, i))) {
            PyErr_SetString(PyExc_TypeError, "copy_each: the names are strings");
            failed = 1;
            continue;
        }
        fast[i] = PySequence_Fast(PyTuple_GET_ITEM(columns, i), "copy_each: a column is a sequence");
        if (fast[i] == NULL) {
            failed = 1;
            continue;
        }
        Py_ssize_t size = PySequence_Fast_GET_SIZE(fast[i]);
        if (count >= 0 && size != count) {
            PyErr_SetString(PyExc_ValueError, "copy_each: the columns differ in length");
            failed = 1;
        }
        count = size;
    }
    PyObject *out = failed ? NULL : PyList_New(count);
    for (Py_ssize_t k = 0; out != NULL && k < count; k++) {
        PyObject *copy = copy_slots(original);
        if (copy == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, k, copy);
        for (Py_ssize_t i = 0; i < fields; i++) {
            if (PyObject_SetAttr(copy, PyTuple_GET_ITEM(names, i), PySequence_Fast_GET_ITEM(fast[i], k)) < 0) {
                Py_CLEAR(out);
                break;
            }
        }
    }
    for (Py_ssize_t i = 0; i < fields; i++)
        Py_XDECREF(fast[i]);
    return out;
}

static PyMethodDef methods[] = {
    {"copy_each", copy_each, METH_VARARGS,
     "copy_each(original, names, columns) -> list: copies of a slotted object, names[i] set to columns[i][k]."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_copies", NULL, -1, methods};

PyMODINIT_FUNC PyInit__copies(void)
{
    return PyModule_Create(&module);
}
