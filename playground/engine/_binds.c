/* The per-pod loops of a run of pods bound together, and of its containers' starts (see binds.py,
 * which holds the same four functions in Python: the reference, and what runs where this module is
 * not built).
 *
 * Opening 150,000 pods binds them in runs of thousands; the store's accounting, the kubelets'
 * admission and the container starts of each pod were a few dozen bytecodes each, about a fifth of
 * the open. Here each is the same sequence of attribute reads and writes, dictionary look-ups and
 * appends, in the same order, without the interpreter's dispatch. Every attribute is read and
 * written through the object's own type (PyObject_GetAttr / PyObject_SetAttr), so what a class
 * does with its attributes applies as it does in Python; every comparison and addition is Python's
 * own (PyObject_RichCompareBool, PyNumber_Add).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *s_node_name, *s_key, *s_requested_cpu, *s_requested_memory, *s_nonzero_cpu,
    *s_nonzero_memory, *s_pod_count, *s_cpu, *s_memory, *s_containers, *s_volume_claims, *s_timer,
    *s_started, *s_uid, *s_start_duration, *s_one;

/* obj.name += value */
static int add_to(PyObject *obj, PyObject *name, PyObject *value)
{
    PyObject *old = PyObject_GetAttr(obj, name);
    if (old == NULL)
        return -1;
    PyObject *sum = PyNumber_Add(old, value);
    Py_DECREF(old);
    if (sum == NULL)
        return -1;
    int rc = PyObject_SetAttr(obj, name, sum);
    Py_DECREF(sum);
    return rc;
}

/* `value or fallback`, a new reference */
static PyObject *or_else(PyObject *value, PyObject *fallback)
{
    int truth = PyObject_IsTrue(value);
    if (truth < 0)
        return NULL;
    PyObject *chosen = truth ? value : fallback;
    Py_INCREF(chosen);
    return chosen;
}

/* The node's five totals grow by the pod's requests (Store._account, +1). */
static int count_on_node(PyObject *node, PyObject *pod, PyObject *default_cpu, PyObject *default_memory)
{
    PyObject *cpu = PyObject_GetAttr(pod, s_cpu);
    PyObject *memory = cpu ? PyObject_GetAttr(pod, s_memory) : NULL;
    PyObject *nz_cpu = memory ? or_else(cpu, default_cpu) : NULL;
    PyObject *nz_memory = nz_cpu ? or_else(memory, default_memory) : NULL;
    int rc = -1;
    if (nz_memory != NULL && add_to(node, s_requested_cpu, cpu) == 0 && add_to(node, s_requested_memory, memory) == 0
        && add_to(node, s_nonzero_cpu, nz_cpu) == 0 && add_to(node, s_nonzero_memory, nz_memory) == 0
        && add_to(node, s_pod_count, s_one) == 0)
        rc = 0;
    Py_XDECREF(cpu);
    Py_XDECREF(memory);
    Py_XDECREF(nz_cpu);
    Py_XDECREF(nz_memory);
    return rc;
}

/* account_bound(pods, by_node, nodes, default_cpu, default_memory) -> list: see binds.account_bound. */
static PyObject *account_bound(PyObject *self, PyObject *args)
{
    PyObject *pods, *by_node, *nodes, *default_cpu, *default_memory;
    if (!PyArg_ParseTuple(args, "O!O!O!OO:account_bound", &PyList_Type, &pods, &PyDict_Type, &by_node,
                          &PyDict_Type, &nodes, &default_cpu, &default_memory))
        return NULL;
    PyObject *changed = PyList_New(0);
    for (Py_ssize_t i = 0; changed != NULL && i < PyList_GET_SIZE(pods); i++) {
        PyObject *pod = PyList_GET_ITEM(pods, i);
        PyObject *name = PyObject_GetAttr(pod, s_node_name);
        PyObject *key = name ? PyObject_GetAttr(pod, s_key) : NULL;
        int ok = key != NULL;
        PyObject *listed = ok ? PyDict_GetItemWithError(by_node, name) : NULL;  /* borrowed */
        if (ok && listed == NULL) {
            ok = !PyErr_Occurred() && (listed = PyDict_New()) != NULL;
            if (ok) {
                ok = PyDict_SetItem(by_node, name, listed) == 0;
                Py_DECREF(listed);  /* by_node holds it */
            }
        }
        ok = ok && PyDict_SetItem(listed, key, pod) == 0;
        PyObject *node = ok ? PyDict_GetItemWithError(nodes, name) : NULL;  /* borrowed */
        if (ok && node == NULL)
            ok = !PyErr_Occurred();
        else if (ok) {
            Py_INCREF(node);
            ok = count_on_node(node, pod, default_cpu, default_memory) == 0 && PyList_Append(changed, node) == 0;
            Py_DECREF(node);
        }
        Py_XDECREF(name);
        Py_XDECREF(key);
        if (!ok)
            Py_CLEAR(changed);
    }
    return changed;
}

/* The value `table` holds for `name`, asking `lookup(name)` (and remembering its answer) the first
 * time: a borrowed reference, or NULL with an exception set. */
static PyObject *remembered(PyObject *table, PyObject *name, PyObject *lookup)
{
    PyObject *value = PyDict_GetItemWithError(table, name);
    if (value != NULL || PyErr_Occurred())
        return value;
    value = PyObject_CallOneArg(lookup, name);
    if (value == NULL)
        return NULL;
    int rc = PyDict_SetItem(table, name, value);
    Py_DECREF(value);
    return rc == 0 ? value : NULL;
}

/* admit_all(pods, writer_of, stop) -> list | None: see binds.admit_all. */
static PyObject *admit_all(PyObject *self, PyObject *args)
{
    PyObject *pods, *writer_of, *stop;
    if (!PyArg_ParseTuple(args, "O!OO:admit_all", &PyList_Type, &pods, &writer_of, &stop))
        return NULL;
    PyObject *writers = PyDict_New();
    PyObject *admitted = writers ? PyList_New(0) : NULL;
    PyObject *empty = PyUnicode_FromString("");
    for (Py_ssize_t i = 0; admitted != NULL && i < PyList_GET_SIZE(pods); i++) {
        PyObject *pod = PyList_GET_ITEM(pods, i);
        PyObject *name = PyObject_GetAttr(pod, s_node_name), *key = NULL, *containers = NULL, *claims = NULL;
        PyObject *named = name ? or_else(name, empty) : NULL;
        PyObject *kubelet = named ? remembered(writers, named, writer_of) : NULL;  /* borrowed */
        int ok = kubelet != NULL, done = 0;
        if (ok && kubelet == stop) {
            Py_CLEAR(admitted);
            Py_INCREF(Py_None);
            admitted = Py_None;
            done = 1;
        } else if (ok && kubelet != Py_None) {
            key = PyObject_GetAttr(pod, s_key);
            containers = key ? PyObject_GetAttr(kubelet, s_containers) : NULL;
            int held = containers ? PySequence_Contains(containers, key) : -1;
            ok = held >= 0;
            if (ok && !held) {
                claims = PyObject_GetAttr(pod, s_volume_claims);
                int mounts = claims ? PyObject_IsTrue(claims) : -1;
                ok = mounts >= 0;
                if (ok && mounts) {
                    Py_CLEAR(admitted);
                    Py_INCREF(Py_None);
                    admitted = Py_None;
                    done = 1;
                } else if (ok) {
                    PyObject *pair = PyTuple_Pack(2, kubelet, pod);
                    ok = pair != NULL && PyList_Append(admitted, pair) == 0;
                    Py_XDECREF(pair);
                }
            }
        }
        Py_XDECREF(name);
        Py_XDECREF(named);
        Py_XDECREF(key);
        Py_XDECREF(containers);
        Py_XDECREF(claims);
        if (!ok)
            Py_CLEAR(admitted);
        if (done)
            break;
    }
    Py_XDECREF(empty);
    Py_XDECREF(writers);
    return admitted;
}

/* add_containers(admitted, containers, now, add, open_batch): see binds.add_containers. */
static PyObject *add_containers(PyObject *self, PyObject *args)
{
    PyObject *admitted, *containers, *now, *add, *open_batch;
    if (!PyArg_ParseTuple(args, "O!O!OOO:add_containers", &PyList_Type, &admitted, &PyList_Type, &containers, &now,
                          &add, &open_batch))
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(admitted);
    if (PyList_GET_SIZE(containers) != count) {
        PyErr_SetString(PyExc_ValueError, "add_containers: a container for each admitted pod");
        return NULL;
    }
    PyObject *last_due = NULL, *batch = NULL, *timer = NULL;  /* owned */
    int ok = 1;
    for (Py_ssize_t i = 0; ok && i < count; i++) {
        PyObject *pair = PyList_GET_ITEM(admitted, i), *container = PyList_GET_ITEM(containers, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "add_containers: admitted holds (kubelet, pod) pairs");
            ok = 0;
            break;
        }
        PyObject *kubelet = PyTuple_GET_ITEM(pair, 0), *pod = PyTuple_GET_ITEM(pair, 1);
        PyObject *key = PyObject_GetAttr(pod, s_key);
        PyObject *held = key ? PyObject_GetAttr(kubelet, s_containers) : NULL;
        ok = held != NULL && PyObject_SetItem(held, key, container) == 0;
        PyObject *duration = ok ? PyObject_GetAttr(pod, s_start_duration) : NULL;
        PyObject *due = duration ? PyNumber_Add(now, duration) : NULL;
        PyObject *node_name = due ? PyObject_GetAttr(kubelet, s_node_name) : NULL;
        ok = node_name != NULL;
        int same = ok && last_due != NULL ? PyObject_RichCompareBool(due, last_due, Py_EQ) : 0;
        ok = ok && same >= 0;
        if (ok && same) {  /* starts.add into the batch it opened or joined for the pod before */
            PyObject *entry = PyTuple_Pack(2, node_name, key);
            ok = entry != NULL && PyList_Append(batch, entry) == 0 && PyObject_SetAttr(container, s_timer, timer) == 0;
            Py_XDECREF(entry);
        } else if (ok) {
            PyObject *result = PyObject_CallFunctionObjArgs(add, node_name, container, due, NULL);
            ok = result != NULL;
            Py_XDECREF(result);
            Py_XSETREF(batch, ok ? PyObject_CallNoArgs(open_batch) : NULL);
            Py_XSETREF(timer, batch ? PyObject_GetAttr(container, s_timer) : NULL);
            ok = timer != NULL && PyList_Check(batch);
            if (ok) {
                Py_INCREF(due);
                Py_XSETREF(last_due, due);
            } else if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "add_containers: open_batch() returns a list");
            }
        }
        Py_XDECREF(key);
        Py_XDECREF(held);
        Py_XDECREF(duration);
        Py_XDECREF(due);
        Py_XDECREF(node_name);
    }
    Py_XDECREF(last_due);
    Py_XDECREF(batch);
    Py_XDECREF(timer);
    if (!ok)
        return NULL;
    Py_RETURN_NONE;
}

/* start_batch(batch, machine_of, pods, number) -> list: see binds.start_batch. */
static PyObject *start_batch(PyObject *self, PyObject *args)
{
    PyObject *batch, *machine_of, *pods, *number;
    if (!PyArg_ParseTuple(args, "O!OO!O:start_batch", &PyList_Type, &batch, &machine_of, &PyDict_Type, &pods,
                          &number))
        return NULL;
    PyObject *mark = PyNumber_Negative(number);
    PyObject *machines = mark ? PyDict_New() : NULL;
    PyObject *running = machines ? PyList_New(0) : NULL;
    for (Py_ssize_t i = 0; running != NULL && i < PyList_GET_SIZE(batch); i++) {
        PyObject *entry = PyList_GET_ITEM(batch, i);
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2) {
            PyErr_SetString(PyExc_TypeError, "start_batch: the batch holds (node name, pod key) pairs");
            Py_CLEAR(running);
            break;
        }
        PyObject *node_name = PyTuple_GET_ITEM(entry, 0), *pod_key = PyTuple_GET_ITEM(entry, 1);
        PyObject *machine = remembered(machines, node_name, machine_of);  /* borrowed */
        int ok = machine != NULL;
        if (ok && (!PyTuple_Check(machine) || PyTuple_GET_SIZE(machine) != 2)) {
            PyErr_SetString(PyExc_TypeError, "start_batch: machine_of returns (containers, can write)");
            ok = 0;
        }
        PyObject *held = ok ? PyTuple_GET_ITEM(machine, 0) : NULL;
        if (ok && !PyDict_Check(held)) {
            PyErr_SetString(PyExc_TypeError, "start_batch: a machine's containers are a dict");
            ok = 0;
        }
        PyObject *container = ok ? PyDict_GetItemWithError(held, pod_key) : NULL;  /* borrowed */
        PyObject *timer = NULL, *uid = NULL, *cuid = NULL;
        ok = ok && (container != NULL || !PyErr_Occurred());
        Py_XINCREF(container);  /* (the attribute writes below run the class's descriptors) */
        if (ok && container != NULL) {
            timer = PyObject_GetAttr(container, s_timer);
            int due = timer ? PyObject_RichCompareBool(timer, mark, Py_EQ) : -1;
            ok = due >= 0;
            if (ok && due) {
                /* Kubelet.container_running, inlined: a batch is every pod started at one instant */
                ok = PyObject_SetAttr(container, s_timer, Py_None) == 0
                     && PyObject_SetAttr(container, s_started, Py_True) == 0;
                PyObject *pod = ok ? PyDict_GetItemWithError(pods, pod_key) : NULL;  /* borrowed */
                if (ok && pod == NULL) {
                    ok = !PyErr_Occurred();
                } else if (ok) {
                    Py_INCREF(pod);
                    uid = PyObject_GetAttr(pod, s_uid);
                    cuid = uid ? PyObject_GetAttr(container, s_uid) : NULL;
                    int same = cuid ? PyObject_RichCompareBool(uid, cuid, Py_EQ) : -1;
                    int writes = same > 0 ? PyObject_IsTrue(PyTuple_GET_ITEM(machine, 1)) : same;
                    ok = writes >= 0 && (!writes || PyList_Append(running, pod) == 0);
                    Py_DECREF(pod);
                }
            }
        }
        Py_XDECREF(container);
        Py_XDECREF(timer);
        Py_XDECREF(uid);
        Py_XDECREF(cuid);
        if (!ok)
            Py_CLEAR(running);
    }
    Py_XDECREF(mark);
    Py_XDECREF(machines);
    return running;
}

static PyMethodDef methods[] = {
    {"account_bound", account_bound, METH_VARARGS,
     "account_bound(pods, by_node, nodes, default_cpu, default_memory) -> list of the pods' nodes found."},
    {"admit_all", admit_all, METH_VARARGS,
     "admit_all(pods, writer_of, stop) -> list of (kubelet, pod), or None where a pod needs pod_bound."},
    {"add_containers", add_containers, METH_VARARGS,
     "add_containers(admitted, containers, now, add, open_batch): each container held and its start due."},
    {"start_batch", start_batch, METH_VARARGS,
     "start_batch(batch, machine_of, pods, number) -> list of the pods whose Running report is written."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_binds", NULL, -1, methods};

PyMODINIT_FUNC PyInit__binds(void)
{
    struct { PyObject **name; const char *text; } names[] = {
        {&s_node_name, "node_name"}, {&s_key, "key"}, {&s_requested_cpu, "requested_cpu"},
        {&s_requested_memory, "requested_memory"}, {&s_nonzero_cpu, "nonzero_cpu"},
        {&s_nonzero_memory, "nonzero_memory"}, {&s_pod_count, "pod_count"}, {&s_cpu, "cpu"},
        {&s_memory, "memory"}, {&s_containers, "containers"}, {&s_volume_claims, "volume_claims"},
        {&s_timer, "timer"}, {&s_started, "started"}, {&s_uid, "uid"},
        {&s_start_duration, "start_duration"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if ((*names[i].name = PyUnicode_InternFromString(names[i].text)) == NULL)
            return NULL;
    }
    if ((s_one = PyLong_FromLong(1)) == NULL)
        return NULL;
    return PyModule_Create(&module);
}
