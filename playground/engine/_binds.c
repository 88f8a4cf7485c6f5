/* The per-pod loops of a run of equivalent pods: taken from the scheduling queue, bound together,
 * and its containers' starts (see binds.py, which holds the same functions in Python: the
 * reference, and what runs where this module is not built).
 *
 * Opening 150,000 pods binds them in runs of thousands; the store's accounting, the kubelets'
 * admission and the container starts of each pod were a few dozen bytecodes each, about a fifth of
 * the open. Here each is the same sequence of attribute reads and writes, dictionary look-ups and
 * appends, without the interpreter's dispatch: in the same order, or, where what one pod's reads see
 * depends on no other pod's writes, in the order of the objects' addresses (a stable sort), which
 * the processor's prefetcher follows. The ReplicaSet controller's indexes of a batch of pods told
 * together are here too. Every comparison and addition is Python's own (PyObject_RichCompareBool,
 * PyNumber_Add, PyNumber_InPlaceAdd for +=).
 *
 * Attributes: a field of a slotted class (Pod, Node, Container: dataclass(slots=True); Kubelet) is
 * read and written in its slot, as the interpreter's specialised LOAD_ATTR_SLOT / STORE_ATTR_SLOT
 * do, where the class's attribute of that name is a plain member descriptor and the class gets and
 * sets attributes the generic way; anything else (an instance __dict__, a property, a class of a
 * test) goes through PyObject_GetAttr / PyObject_SetAttr. What is found for a class is kept with the
 * class's version tag, which CPython changes whenever the class or a base is modified.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef struct {
    const char *text;
    PyObject *name;         /* interned */
    PyTypeObject *type;     /* the class last resolved (a strong reference), or NULL */
    unsigned int version;   /* its version tag then */
    Py_ssize_t offset;      /* the slot's offset in its objects, or -1: the generic way */
    int writable;
} Field;

/* One Field for each class it is read on (a Field keeps the class it found last). */
static Field f_node_name = {"node_name"}, f_kubelet_node_name = {"node_name"}, f_key = {"key"},
             f_requested_cpu = {"requested_cpu"}, f_requested_memory = {"requested_memory"},
             f_nonzero_cpu = {"nonzero_cpu"}, f_nonzero_memory = {"nonzero_memory"}, f_pod_count = {"pod_count"},
             f_cpu = {"cpu"}, f_memory = {"memory"}, f_containers = {"containers"},
             f_volume_claims = {"volume_claims"}, f_timer = {"timer"}, f_started = {"started"}, f_uid = {"uid"},
             f_container_uid = {"uid"}, f_start_duration = {"start_duration"},
             f_allocatable_pods = {"allocatable_pods"}, f_allocatable_cpu = {"allocatable_cpu"},
             f_allocatable_memory = {"allocatable_memory"}, f_labels = {"labels"}, f_info_key = {"key"},
             f_info_token = {"token"}, f_info_where = {"where"}, f_info_attempts = {"attempts"},
             f_owner = {"owner"}, f_owner_kind = {"kind"}, f_owner_name = {"name"}, f_phase = {"phase"},
             f_deletion_timestamp = {"deletion_timestamp"}, f_conditions = {"conditions"}, f_status = {"status"};

static Field *fields[] = {&f_node_name, &f_kubelet_node_name, &f_key, &f_requested_cpu, &f_requested_memory,
                          &f_nonzero_cpu, &f_nonzero_memory, &f_pod_count, &f_cpu, &f_memory, &f_containers,
                          &f_volume_claims, &f_timer, &f_started, &f_uid, &f_container_uid, &f_start_duration,
                          &f_allocatable_pods, &f_allocatable_cpu, &f_allocatable_memory, &f_labels, &f_info_key,
                          &f_info_token, &f_info_where, &f_info_attempts, &f_owner, &f_owner_kind, &f_owner_name,
                          &f_phase, &f_deletion_timestamp, &f_conditions, &f_status};

static PyObject *one, *s_signalling, *s_shutdown, *s_ready, *s_replicaset, *s_removed, *s_condition;
static PyObject *stop_mark;  /* writer's answer for a node whose pods take pod_bound one after another */

/* The offset of `name`'s slot in objects of `type` where the class's attribute of that name is a
 * plain member descriptor holding an object and the class gets attributes the generic way; else -1.
 * *writable: the class also sets it the generic way and the member is not read-only. */
static Py_ssize_t slot_offset(PyTypeObject *type, PyObject *name, int *writable)
{
    *writable = 0;
    PyObject *descr = PyUnicode_Check(name) ? _PyType_Lookup(type, name) : NULL;  /* borrowed */
    if (type->tp_getattro != PyObject_GenericGetAttr || descr == NULL || !Py_IS_TYPE(descr, &PyMemberDescr_Type))
        return -1;
    PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
    if (member->type != T_OBJECT_EX)
        return -1;
    *writable = !(member->flags & READONLY) && type->tp_setattro == PyObject_GenericSetAttr;
    return member->offset;
}

/* The field's slot in objects of `type` (slot_offset), kept with the class's version tag. */
static void resolve(Field *f, PyTypeObject *type)
{
    Py_INCREF(type);
    Py_XSETREF(f->type, type);
    f->offset = slot_offset(type, f->name, &f->writable);  /* (the look-up gives the class a version tag) */
    f->version = type->tp_version_tag;
    if (f->version == 0)
        f->offset = -1;
}

/* (a version tag of 0 is none: a class modified and not looked up since) */
static inline void check(Field *f, PyTypeObject *type)
{
    if (type != f->type || type->tp_version_tag != f->version || f->version == 0)
        resolve(f, type);
}

/* obj.<field>: a new reference, or NULL with an exception set */
static PyObject *get(PyObject *obj, Field *f)
{
    check(f, Py_TYPE(obj));
    if (f->offset >= 0) {
        PyObject *value = *(PyObject **)((char *)obj + f->offset);
        if (value != NULL) {
            Py_INCREF(value);
            return value;
        }
    }
    return PyObject_GetAttr(obj, f->name);  /* (an empty slot: the AttributeError) */
}

/* obj.<field> = value */
static int set(PyObject *obj, Field *f, PyObject *value)
{
    check(f, Py_TYPE(obj));
    if (f->offset >= 0 && f->writable) {
        PyObject **slot = (PyObject **)((char *)obj + f->offset);
        PyObject *old = *slot;
        Py_INCREF(value);
        *slot = value;
        Py_XDECREF(old);
        return 0;
    }
    return PyObject_SetAttr(obj, f->name, value);
}

/* obj.<field> += value */
static int add_to(PyObject *obj, Field *f, PyObject *value)
{
    PyObject *old = get(obj, f);
    if (old == NULL)
        return -1;
    PyObject *sum = PyNumber_InPlaceAdd(old, value);
    Py_DECREF(old);
    if (sum == NULL)
        return -1;
    int rc = set(obj, f, sum);
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
    PyObject *cpu = get(pod, &f_cpu);
    PyObject *memory = cpu ? get(pod, &f_memory) : NULL;
    int rc = -1;
    if (memory != NULL && add_to(node, &f_requested_cpu, cpu) == 0 && add_to(node, &f_requested_memory, memory) == 0) {
        PyObject *nz_cpu = or_else(cpu, default_cpu);
        PyObject *nz_memory = nz_cpu ? or_else(memory, default_memory) : NULL;
        if (nz_memory != NULL && add_to(node, &f_nonzero_cpu, nz_cpu) == 0
            && add_to(node, &f_nonzero_memory, nz_memory) == 0 && add_to(node, &f_pod_count, one) == 0)
            rc = 0;
        Py_XDECREF(nz_cpu);
        Py_XDECREF(nz_memory);
    }
    Py_XDECREF(cpu);
    Py_XDECREF(memory);
    return rc;
}

/* Each of n references (NULL where none was taken) given back, and their array freed (NULL: none). */
static void release(PyObject **refs, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; refs != NULL && i < n; i++)
        Py_XDECREF(refs[i]);
    PyMem_Free(refs);
}

/* An object's address and the index of the pod it was found for: sorted by address, then index. */
typedef struct {
    uintptr_t address;
    Py_ssize_t index;
} Placed;

static int by_address(const void *a, const void *b)
{
    const Placed *x = a, *y = b;
    if (x->address != y->address)
        return x->address < y->address ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* account_bound(pods, by_node, nodes, default_cpu, default_memory) -> list: see binds.account_bound.
 * A run's pods land each on a node of its own, far in memory from the last one's: the writes into each node's
 * listing and onto its totals are made in the order of the listings' and the nodes' addresses,
 * which the processor's prefetcher follows (a stable sort: a node's pods are listed in bind
 * order). Nothing reads what another node's writes change, so the result is that of the pods in
 * order (binds.account_bound); a node's listing new to `by_node` is added there in pod order. */
static PyObject *account_bound(PyObject *self, PyObject *args)
{
    PyObject *pods, *by_node, *nodes, *default_cpu, *default_memory;
    if (!PyArg_ParseTuple(args, "O!O!O!OO:account_bound", &PyList_Type, &pods, &PyDict_Type, &by_node,
                          &PyDict_Type, &nodes, &default_cpu, &default_memory))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(pods), size = n ? n : 1;
    Placed *on_nodes = PyMem_Malloc(size * sizeof(Placed)), *listings = PyMem_Malloc(size * sizeof(Placed));
    PyObject **node_of = PyMem_Calloc(size, sizeof(PyObject *)), **key_of = PyMem_Calloc(size, sizeof(PyObject *));
    PyObject *changed = NULL;
    int ok = on_nodes != NULL && listings != NULL && node_of != NULL && key_of != NULL;
    if (!ok)
        PyErr_NoMemory();
    for (Py_ssize_t i = 0; ok && i < n; i++) {  /* in pod order: each pod's listing and node found */
        PyObject *pod = PyList_GET_ITEM(pods, i);
        PyObject *name = get(pod, &f_node_name);
        key_of[i] = name ? get(pod, &f_key) : NULL;
        PyObject *listed = key_of[i] ? PyDict_GetItemWithError(by_node, name) : NULL;  /* borrowed */
        ok = key_of[i] != NULL && (listed != NULL || !PyErr_Occurred());
        if (ok && listed == NULL) {
            ok = (listed = PyDict_New()) != NULL;
            if (ok) {
                ok = PyDict_SetItem(by_node, name, listed) == 0;
                Py_DECREF(listed);  /* by_node holds it */
            }
        }
        PyObject *node = ok ? PyDict_GetItemWithError(nodes, name) : NULL;  /* borrowed */
        ok = ok && (node != NULL || !PyErr_Occurred());
        node_of[i] = Py_XNewRef(node);
        listings[i] = (Placed){(uintptr_t)listed, i};
        on_nodes[i] = (Placed){(uintptr_t)node, i};
        Py_XDECREF(name);
    }
    if (ok) {
        qsort(listings, n, sizeof(Placed), by_address);
        qsort(on_nodes, n, sizeof(Placed), by_address);
    }
    for (Py_ssize_t j = 0; ok && j < n; j++) {  /* (by_node holds each listing) */
        Py_ssize_t i = listings[j].index;
        ok = PyDict_SetItem((PyObject *)listings[j].address, key_of[i], PyList_GET_ITEM(pods, i)) == 0;
    }
    for (Py_ssize_t j = 0; ok && j < n; j++) {
        Py_ssize_t i = on_nodes[j].index;
        if (node_of[i] != NULL)
            ok = count_on_node(node_of[i], PyList_GET_ITEM(pods, i), default_cpu, default_memory) == 0;
    }
    changed = ok ? PyList_New(0) : NULL;
    for (Py_ssize_t i = 0; changed != NULL && i < n; i++)
        if (node_of[i] != NULL && PyList_Append(changed, node_of[i]) < 0)
            Py_CLEAR(changed);
    release(node_of, n);
    release(key_of, n);
    PyMem_Free(on_nodes);
    PyMem_Free(listings);
    return changed;
}

/* Every pod the store counts on the node fits its allocatable (binds.totals_fit): 1, 0, or -1 */
static int totals_fit(PyObject *node)
{
    static Field *pairs[][2] = {{&f_pod_count, &f_allocatable_pods}, {&f_requested_cpu, &f_allocatable_cpu},
                                {&f_requested_memory, &f_allocatable_memory}};
    for (size_t i = 0; i < 3; i++) {
        PyObject *total = get(node, pairs[i][0]);
        PyObject *allocatable = total ? get(node, pairs[i][1]) : NULL;
        int fits = allocatable ? PyObject_RichCompareBool(total, allocatable, Py_LE) : -1;
        Py_XDECREF(total);
        Py_XDECREF(allocatable);
        if (fits <= 0)
            return fits;
    }
    return 1;
}

/* binds.writer for the node's kubelet (NULL: the node has none): the kubelet if it can write, None,
 * or stop_mark (a new reference; NULL with an exception set) */
static PyObject *writer(PyObject *kubelet, PyObject *nodes, PyObject *name)
{
    if (kubelet == NULL)
        return Py_NewRef(Py_None);
    PyObject *answer = NULL;
    PyObject *signalling = PyObject_GetAttr(kubelet, s_signalling);
    int writes = signalling ? PyObject_IsTrue(signalling) : -1;
    Py_XDECREF(signalling);
    if (writes == 0) {
        answer = Py_NewRef(Py_None);
    } else if (writes > 0) {
        PyObject *shutdown = PyObject_GetAttr(kubelet, s_shutdown);
        if (shutdown != NULL && shutdown != Py_None) {
            answer = Py_NewRef(stop_mark);
        } else if (shutdown != NULL) {
            PyObject *node = PyDict_GetItemWithError(nodes, name);  /* borrowed */
            Py_XINCREF(node);
            int fits = node ? totals_fit(node) : PyErr_Occurred() ? -1 : 1;
            Py_XDECREF(node);
            if (fits >= 0)
                answer = Py_NewRef(fits ? kubelet : stop_mark);
        }
        Py_XDECREF(shutdown);
    }
    return answer;
}

/* key in containers, its hash known (read where the key was, in pod order): 1, 0, or -1 */
static int holds(PyObject *containers, PyObject *key, Py_hash_t hash)
{
#if PY_VERSION_HEX < 0x030D0000
    if (PyDict_CheckExact(containers))
        return _PyDict_Contains_KnownHash(containers, key, hash);
#endif
    return PyDict_CheckExact(containers) ? PyDict_Contains(containers, key) : PySequence_Contains(containers, key);
}

/* What admit_all found for one pod: its name, key (new references) and kubelet (a new reference or
 * NULL), read in pod order; then whether its kubelet admits it. */
typedef struct {
    PyObject *name, *key, *kubelet;
    Py_hash_t hash;
    char claims, admitted;
} Admission;

/* In pod order: each pod's node name ("" for none), key, its hash, whether it has volume claims,
 * and its node's kubelet; `order` each pod's kubelet's address and its index. 0 or -1. */
static int read_pods(PyObject *pods, PyObject *kubelets, Admission *found, Placed *order, PyObject *empty)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(pods); i++) {
        PyObject *pod = PyList_GET_ITEM(pods, i);
        Admission *a = &found[i];
        PyObject *name = get(pod, &f_node_name);
        a->name = name ? or_else(name, empty) : NULL;
        Py_XDECREF(name);
        a->key = a->name ? get(pod, &f_key) : NULL;
        a->hash = a->key ? PyObject_Hash(a->key) : -1;
        PyObject *claims = a->hash != -1 ? get(pod, &f_volume_claims) : NULL;
        int mounts = claims ? PyObject_IsTrue(claims) : -1;
        Py_XDECREF(claims);
        if (mounts < 0)
            return -1;
        a->claims = (char)mounts;
        a->kubelet = Py_XNewRef(PyDict_GetItemWithError(kubelets, a->name));
        if (a->kubelet == NULL && PyErr_Occurred())
            return -1;
        order[i] = (Placed){(uintptr_t)a->kubelet, i};
    }
    return 0;
}

/* In the order of the kubelets' addresses (`order`, sorted), which the prefetcher follows: each
 * kubelet's writer asked once, and each of its pods admitted that it does not hold yet. 1 where
 * some pod needs its own pod_bound (binds.admit_all's None), 0, or -1. */
static int admit_in_order(Admission *found, Placed *order, Py_ssize_t n, PyObject *nodes)
{
    PyObject *kubelet = NULL, *answer = NULL, *containers = NULL;  /* the kubelet's writer and its containers */
    int rc = 0;
    for (Py_ssize_t j = 0; rc == 0 && j < n; j++) {
        Admission *a = &found[order[j].index];
        if (j == 0 || a->kubelet != kubelet) {
            kubelet = a->kubelet;
            Py_CLEAR(containers);
            Py_XSETREF(answer, writer(kubelet, nodes, a->name));
            if (answer == NULL || answer == stop_mark) {
                rc = answer == NULL ? -1 : 1;
                break;
            }
            if (answer != Py_None && (containers = get(answer, &f_containers)) == NULL)
                rc = -1;
        }
        if (rc == 0 && answer != Py_None) {
            int held = holds(containers, a->key, a->hash);
            if (held < 0)
                rc = -1;
            else if (!held && a->claims)
                rc = 1;
            a->admitted = !held;
        }
    }
    Py_XDECREF(answer);
    Py_XDECREF(containers);
    return rc;
}

/* admit_all(pods, kubelets, nodes) -> list | None: see binds.admit_all. Nothing it asks changes what
 * another pod's admission reads, so each is asked in the order its kubelet's memory holds, and the
 * pairs listed in pod order. */
static PyObject *admit_all(PyObject *self, PyObject *args)
{
    PyObject *pods, *kubelets, *nodes;
    if (!PyArg_ParseTuple(args, "O!O!O!:admit_all", &PyList_Type, &pods, &PyDict_Type, &kubelets, &PyDict_Type,
                          &nodes))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(pods), size = n ? n : 1;
    Admission *found = PyMem_Calloc(size, sizeof(Admission));
    Placed *order = PyMem_Malloc(size * sizeof(Placed));
    PyObject *empty = PyUnicode_FromString(""), *admitted = NULL;
    int rc = found && order ? 0 : (PyErr_NoMemory(), -1);
    if (rc == 0 && empty != NULL && read_pods(pods, kubelets, found, order, empty) == 0) {
        qsort(order, n, sizeof(Placed), by_address);
        rc = admit_in_order(found, order, n, nodes);
        if (rc == 1)
            admitted = Py_NewRef(Py_None);
        else if (rc == 0)
            admitted = PyList_New(0);
    }
    for (Py_ssize_t i = 0; admitted != NULL && admitted != Py_None && i < n; i++) {
        if (!found[i].admitted)
            continue;
        PyObject *pair = PyTuple_Pack(2, found[i].kubelet, PyList_GET_ITEM(pods, i));
        if (pair == NULL || PyList_Append(admitted, pair) < 0)
            Py_CLEAR(admitted);
        Py_XDECREF(pair);
    }
    for (Py_ssize_t i = 0; found != NULL && i < n; i++) {
        Py_XDECREF(found[i].name);
        Py_XDECREF(found[i].key);
        Py_XDECREF(found[i].kubelet);
    }
    PyMem_Free(found);
    PyMem_Free(order);
    Py_XDECREF(empty);
    return admitted;
}

/* In the order of the kubelets' addresses (`order`, sorted): each container held by its pod's kubelet
 * under the pod's key, and the kubelet's node name noted. 0 or -1. */
static int hold_containers(PyObject *admitted, PyObject *containers, Placed *order, PyObject **key_of,
                           PyObject **name_of)
{
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(admitted); j++) {
        Py_ssize_t i = order[j].index;
        PyObject *kubelet = PyTuple_GET_ITEM(PyList_GET_ITEM(admitted, i), 0);
        PyObject *held = get(kubelet, &f_containers);
        int ok = held != NULL && PyObject_SetItem(held, key_of[i], PyList_GET_ITEM(containers, i)) == 0;
        Py_XDECREF(held);
        if (!ok || (name_of[i] = get(kubelet, &f_kubelet_node_name)) == NULL)
            return -1;
    }
    return 0;
}

/* In pod order: each start added (`add`), or appended to the batch the start before it opened or
 * joined where it is due at the same time (binds.add_containers). 0 or -1. */
static int add_starts(PyObject *admitted, PyObject *containers, PyObject **key_of, PyObject **name_of,
                      PyObject *now, PyObject *add, PyObject *open_batch)
{
    PyObject *last_due = NULL, *batch = NULL, *timer = NULL;  /* owned */
    int ok = 1;
    for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(admitted); i++) {
        PyObject *pod = PyTuple_GET_ITEM(PyList_GET_ITEM(admitted, i), 1), *container = PyList_GET_ITEM(containers, i);
        PyObject *duration = get(pod, &f_start_duration);
        PyObject *due = duration ? PyNumber_Add(now, duration) : NULL;
        ok = due != NULL;
        int same = ok && last_due != NULL ? PyObject_RichCompareBool(due, last_due, Py_EQ) : 0;
        ok = ok && same >= 0;
        if (ok && same) {  /* starts.add into the batch it opened or joined for the pod before */
            PyObject *entry = PyTuple_Pack(2, name_of[i], key_of[i]);
            ok = entry != NULL && PyList_Append(batch, entry) == 0 && set(container, &f_timer, timer) == 0;
            Py_XDECREF(entry);
        } else if (ok) {
            PyObject *result = PyObject_CallFunctionObjArgs(add, name_of[i], container, due, NULL);
            ok = result != NULL;
            Py_XDECREF(result);
            Py_XSETREF(batch, ok ? PyObject_CallNoArgs(open_batch) : NULL);
            Py_XSETREF(timer, batch ? get(container, &f_timer) : NULL);
            ok = timer != NULL && PyList_Check(batch);
            if (ok) {
                Py_INCREF(due);
                Py_XSETREF(last_due, due);
            } else if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "add_containers: open_batch() returns a list");
            }
        }
        Py_XDECREF(duration);
        Py_XDECREF(due);
    }
    Py_XDECREF(last_due);
    Py_XDECREF(batch);
    Py_XDECREF(timer);
    return ok ? 0 : -1;
}

/* add_containers(admitted, containers, now, add, open_batch): see binds.add_containers. A run's pods
 * land each on a kubelet of its own: the containers are held by their kubelets in the order of the
 * kubelets' addresses (a stable sort: a kubelet's in pod order), which the prefetcher follows, and
 * the starts added in pod order (`add` and `open_batch` read nothing of the kubelets). */
static PyObject *add_containers(PyObject *self, PyObject *args)
{
    PyObject *admitted, *containers, *now, *add, *open_batch;
    if (!PyArg_ParseTuple(args, "O!O!OOO:add_containers", &PyList_Type, &admitted, &PyList_Type, &containers, &now,
                          &add, &open_batch))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(admitted), size = n ? n : 1;
    if (PyList_GET_SIZE(containers) != n) {
        PyErr_SetString(PyExc_ValueError, "add_containers: a container for each admitted pod");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PyList_GET_ITEM(admitted, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "add_containers: admitted holds (kubelet, pod) pairs");
            return NULL;
        }
    }
    Placed *order = PyMem_Malloc(size * sizeof(Placed));
    PyObject **key_of = PyMem_Calloc(size, sizeof(PyObject *)), **name_of = PyMem_Calloc(size, sizeof(PyObject *));
    int ok = order != NULL && key_of != NULL && name_of != NULL;
    if (!ok)
        PyErr_NoMemory();
    for (Py_ssize_t i = 0; ok && i < n; i++) {  /* in pod order: each pod's key */
        PyObject *pair = PyList_GET_ITEM(admitted, i);
        ok = (key_of[i] = get(PyTuple_GET_ITEM(pair, 1), &f_key)) != NULL;
        order[i] = (Placed){(uintptr_t)PyTuple_GET_ITEM(pair, 0), i};
    }
    if (ok) {
        qsort(order, n, sizeof(Placed), by_address);
        ok = hold_containers(admitted, containers, order, key_of, name_of) == 0
             && add_starts(admitted, containers, key_of, name_of, now, add, open_batch) == 0;
    }
    release(key_of, n);
    release(name_of, n);
    PyMem_Free(order);
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
        PyObject *machine = PyDict_GetItemWithError(machines, node_name);  /* borrowed */
        int ok = machine != NULL || !PyErr_Occurred();
        if (ok && machine == NULL) {
            machine = PyObject_CallOneArg(machine_of, node_name);
            ok = machine != NULL && PyDict_SetItem(machines, node_name, machine) == 0;
            Py_XDECREF(machine);  /* machines holds it */
            if (ok && (!PyTuple_Check(machine) || PyTuple_GET_SIZE(machine) != 2
                       || !PyDict_Check(PyTuple_GET_ITEM(machine, 0)))) {
                PyErr_SetString(PyExc_TypeError, "start_batch: machine_of returns (containers dict, can write)");
                ok = 0;
            }
        }
        PyObject *container = ok ? PyDict_GetItemWithError(PyTuple_GET_ITEM(machine, 0), pod_key) : NULL;
        ok = ok && (container != NULL || !PyErr_Occurred());
        Py_XINCREF(container);  /* (held while its fields are written) */
        PyObject *timer = NULL, *uid = NULL, *cuid = NULL;
        if (ok && container != NULL) {
            timer = get(container, &f_timer);
            int due = timer ? PyObject_RichCompareBool(timer, mark, Py_EQ) : -1;
            ok = due >= 0;
            if (ok && due) {
                /* Kubelet.container_running, inlined: a batch is every pod started at one instant */
                ok = set(container, &f_timer, Py_None) == 0 && set(container, &f_started, Py_True) == 0;
                PyObject *pod = ok ? PyDict_GetItemWithError(pods, pod_key) : NULL;  /* borrowed */
                if (ok && pod == NULL) {
                    ok = !PyErr_Occurred();
                } else if (ok) {
                    Py_INCREF(pod);
                    uid = get(pod, &f_uid);
                    cuid = uid ? get(container, &f_container_uid) : NULL;
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

/* The fields of a call's `fields` tuple in the slots of one class (take_run), where each is a plain
 * slot there; otherwise (count -1, or another class) PyObject_GetAttr. */
#define MAX_KEY_FIELDS 64
typedef struct {
    PyTypeObject *type;
    Py_ssize_t count;
    Py_ssize_t offsets[MAX_KEY_FIELDS];
} Slots;

static void slots_of(Slots *slots, PyTypeObject *type, PyObject *fields)
{
    int writable;
    slots->type = type;
    slots->count = PyTuple_GET_SIZE(fields);
    for (Py_ssize_t i = 0; i < slots->count; i++) {
        if (i >= MAX_KEY_FIELDS
            || (slots->offsets[i] = slot_offset(type, PyTuple_GET_ITEM(fields, i), &writable)) < 0) {
            slots->count = -1;
            return;
        }
    }
}

/* Are the pod's `fields` equal to `values`, in order (a tuple's ==): 1, 0, or -1 */
static int fields_equal(PyObject *pod, Slots *slots, PyObject *fields, PyObject *values)
{
    Py_ssize_t count = PyTuple_GET_SIZE(fields);
    if (PyTuple_GET_SIZE(values) != count)
        return 0;
    int slotted = Py_TYPE(pod) == slots->type && slots->count == count;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *value = slotted ? *(PyObject **)((char *)pod + slots->offsets[i]) : NULL;
        if (value != NULL)
            Py_INCREF(value);
        else if ((value = PyObject_GetAttr(pod, PyTuple_GET_ITEM(fields, i))) == NULL)
            return -1;
        int same = PyObject_RichCompareBool(value, PyTuple_GET_ITEM(values, i), Py_EQ);
        Py_DECREF(value);
        if (same <= 0)
            return same;
    }
    return 1;
}

/* take_run(run, infos, pods, limit, labels, fields, values, active, in_flight) -> (taken, pending):
 * see binds.take_run. */
static PyObject *take_run(PyObject *self, PyObject *args)
{
    PyObject *run, *infos, *pods, *labels, *fields, *values, *active, *in_flight;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "OO!O!nOO!O!OO:take_run", &run, &PyDict_Type, &infos, &PyDict_Type, &pods, &limit,
                          &labels, &PyTuple_Type, &fields, &PyTuple_Type, &values, &active, &in_flight))
        return NULL;
    PyObject *taken = PyList_New(0), *pending = NULL;
    Slots slots = {NULL, -1};
    while (taken != NULL && pending == NULL && PyList_GET_SIZE(taken) < limit) {
        Py_ssize_t left = PyObject_Size(run);
        if (left <= 0) {
            if (left < 0)
                Py_CLEAR(taken);
            break;
        }
        PyObject *entry = PyObject_CallMethod(run, "popleft", NULL);
        int ok = entry != NULL && PyTuple_Check(entry) && PyTuple_GET_SIZE(entry) == 2;
        if (entry != NULL && !ok)
            PyErr_SetString(PyExc_TypeError, "take_run: the run holds (token, key) pairs");
        PyObject *info = ok ? PyDict_GetItemWithError(infos, PyTuple_GET_ITEM(entry, 1)) : NULL;  /* borrowed */
        ok = ok && (info != NULL || !PyErr_Occurred());
        Py_XINCREF(info);
        PyObject *token = NULL, *where = NULL, *key = NULL, *pod = NULL, *pod_labels = NULL;
        int live = 0;
        if (ok && info != NULL) {
            token = get(info, &f_info_token);
            int same = token ? PyObject_RichCompareBool(token, PyTuple_GET_ITEM(entry, 0), Py_EQ) : -1;
            where = same > 0 ? get(info, &f_info_where) : NULL;
            live = where ? PyObject_RichCompareBool(where, active, Py_EQ) : same;
            ok = live >= 0;
        }
        if (ok && live > 0) {  /* popped, as pops() pops it */
            ok = set(info, &f_info_where, in_flight) == 0 && add_to(info, &f_info_attempts, one) == 0;
            key = ok ? get(info, &f_info_key) : NULL;
            pod = key ? PyDict_GetItemWithError(pods, key) : NULL;  /* borrowed */
            ok = key != NULL && (pod != NULL || !PyErr_Occurred());
            Py_XINCREF(pod);
            int fits = 0;
            if (ok && pod != NULL) {
                pod_labels = get(pod, &f_labels);
                if (pod_labels == NULL) {
                    fits = -1;
                } else if (pod_labels == labels) {
                    if (slots.type != Py_TYPE(pod))
                        slots_of(&slots, Py_TYPE(pod), fields);
                    fits = fields_equal(pod, &slots, fields, values);
                }
                ok = fits >= 0;
            }
            if (ok && fits) {
                PyObject *pair = PyTuple_Pack(2, pod, info);
                ok = pair != NULL && PyList_Append(taken, pair) == 0;
                Py_XDECREF(pair);
            } else if (ok) {
                pending = Py_NewRef(info);
            }
        }
        Py_XDECREF(entry);
        Py_XDECREF(info);
        Py_XDECREF(token);
        Py_XDECREF(where);
        Py_XDECREF(key);
        Py_XDECREF(pod);
        Py_XDECREF(pod_labels);
        if (!ok)
            Py_CLEAR(taken);
    }
    if (taken == NULL) {
        Py_XDECREF(pending);
        return NULL;
    }
    PyObject *answer = PyTuple_Pack(2, taken, pending ? pending : Py_None);
    Py_DECREF(taken);
    Py_XDECREF(pending);
    return answer;
}

/* ready.pop(key, None) on a dict: 0 or -1 */
static int discard(PyObject *dict, PyObject *key)
{
    int held = PyDict_Contains(dict, key);
    return held > 0 ? PyDict_DelItem(dict, key) : held;
}

/* The controller's indexes of one ReplicaSet (index_replicaset_pods): found again where a pod's
 * owner's name is not the last one's. */
typedef struct {
    PyObject *name, *rs, *active, *ready;  /* new references or NULL */
    int marked;
} Indexes;

static void clear_indexes(Indexes *x)
{
    Py_CLEAR(x->name);
    Py_CLEAR(x->rs);
    Py_CLEAR(x->active);
    Py_CLEAR(x->ready);
}

/* x for the ReplicaSet `name`: 0 or -1 */
static int find_indexes(Indexes *x, PyObject *name, PyObject *replicasets, PyObject *actives, PyObject *readies)
{
    clear_indexes(x);
    x->name = Py_NewRef(name);
    x->marked = 0;
    if ((x->rs = Py_XNewRef(PyDict_GetItemWithError(replicasets, name))) == NULL && PyErr_Occurred())
        return -1;
    if ((x->active = Py_XNewRef(PyDict_GetItemWithError(actives, name))) == NULL && PyErr_Occurred())
        return -1;
    if ((x->ready = Py_XNewRef(PyDict_GetItemWithError(readies, name))) == NULL && PyErr_Occurred())
        return -1;
    return 0;
}

/* The Ready condition of `conditions` is there with status `true`: 1, 0, or -1 */
static int ready_in(PyObject *conditions, PyObject *true_)
{
    PyObject *cond = PyDict_CheckExact(conditions) ? Py_XNewRef(PyDict_GetItemWithError(conditions, s_ready))
                                              : PyObject_CallMethod(conditions, "get", "O", s_ready);
    if (cond == NULL)
        return PyErr_Occurred() ? -1 : 0;
    int ready = 0;
    if (cond != Py_None) {
        PyObject *status = get(cond, &f_status);
        ready = status ? PyObject_RichCompareBool(status, true_, Py_EQ) : -1;
        Py_XDECREF(status);
    }
    Py_DECREF(cond);
    return ready;
}

/* One ReplicaSet pod's change indexed (binds.index_replicaset_pods' loop body): 0 or -1 */
static int index_one(PyObject *pod, Indexes *x, int what_removed, int what_condition, int is_ready_held,
                     PyObject *constants, PyObject *actives, PyObject *readies, PyObject *mark)
{
    PyObject *phase = get(pod, &f_phase);
    PyObject *deletion = phase ? get(pod, &f_deletion_timestamp) : NULL;
    int is_active = deletion == NULL ? -1 : !what_removed && deletion == Py_None;
    if (is_active > 0) {
        is_active = PyObject_RichCompareBool(phase, PyTuple_GET_ITEM(constants, 0), Py_NE);
        if (is_active > 0)
            is_active = PyObject_RichCompareBool(phase, PyTuple_GET_ITEM(constants, 1), Py_NE);
    }
    Py_XDECREF(phase);
    Py_XDECREF(deletion);
    if (is_active < 0)
        return -1;
    int is_ready = is_active && is_ready_held;
    PyObject *uid = get(pod, &f_uid);
    PyObject *key = uid ? get(pod, &f_key) : NULL;
    int rc = key ? 0 : -1;
    if (rc == 0 && what_condition) {
        int in_ready = x->ready ? PyDict_Contains(x->ready, uid) : 0;
        if (in_ready < 0)
            rc = -1;
        else if (in_ready == is_ready)
            goto done;  /* only a change of readiness matters */
    }
    if (rc == 0 && x->active == NULL) {
        x->active = PyDict_New();
        Py_XSETREF(x->ready, x->active ? PyDict_New() : NULL);
        if (x->ready == NULL || PyDict_SetItem(actives, x->name, x->active) < 0
            || PyDict_SetItem(readies, x->name, x->ready) < 0)
            rc = -1;
    }
    if (rc == 0 && is_active) {
        rc = PyDict_SetItem(x->active, key, pod);
        if (rc == 0)
            rc = is_ready ? PyDict_SetItem(x->ready, uid, pod) : discard(x->ready, uid);
    } else if (rc == 0) {
        rc = discard(x->active, key);
        if (rc == 0)
            rc = discard(x->ready, uid);
    }
    if (rc == 0 && x->rs != NULL && !x->marked) {
        x->marked = 1;
        PyObject *result = PyObject_CallOneArg(mark, x->rs);
        rc = result ? 0 : -1;
        Py_XDECREF(result);
    }
done:
    Py_XDECREF(uid);
    Py_XDECREF(key);
    return rc;
}

/* index_replicaset_pods(what, pods, replicasets, actives, readies, on_pod, mark, constants): see
 * binds.index_replicaset_pods. */
static PyObject *index_replicaset_pods(PyObject *self, PyObject *args)
{
    PyObject *what, *pods, *replicasets, *actives, *readies, *on_pod, *mark, *constants;
    if (!PyArg_ParseTuple(args, "UO!O!O!O!OOO!:index_replicaset_pods", &what, &PyList_Type, &pods, &PyDict_Type,
                          &replicasets, &PyDict_Type, &actives, &PyDict_Type, &readies, &on_pod, &mark,
                          &PyTuple_Type, &constants))
        return NULL;
    if (PyTuple_GET_SIZE(constants) != 3) {
        PyErr_SetString(PyExc_TypeError, "index_replicaset_pods: constants are (succeeded, failed, true)");
        return NULL;
    }
    int what_removed = PyUnicode_Compare(what, s_removed) == 0, what_condition = PyUnicode_Compare(what, s_condition) == 0;
    Indexes x = {NULL, NULL, NULL, NULL, 0};
    PyObject *held = NULL;  /* the conditions dict last read (held: a pod's may be the same object) */
    int ready_held = 0, rc = 0;
    for (Py_ssize_t i = 0; rc == 0 && i < PyList_GET_SIZE(pods); i++) {
        PyObject *pod = Py_NewRef(PyList_GET_ITEM(pods, i));
        PyObject *owner = get(pod, &f_owner);
        PyObject *kind = owner && owner != Py_None ? get(owner, &f_owner_kind) : NULL;
        int replicaset = kind ? PyObject_RichCompareBool(kind, s_replicaset, Py_EQ) : owner == Py_None ? 2 : -1;
        PyObject *name = replicaset == 1 ? get(owner, &f_owner_name) : NULL;
        if (replicaset < 0 || (replicaset == 1 && name == NULL)) {
            rc = -1;
        } else if (replicaset == 0) {
            PyObject *result = PyObject_CallFunctionObjArgs(on_pod, what, pod, NULL);
            rc = result ? 0 : -1;
            Py_XDECREF(result);
        } else if (replicaset == 1) {
            int same = x.name ? PyObject_RichCompareBool(name, x.name, Py_EQ) : 0;
            rc = same < 0 || (!same && find_indexes(&x, name, replicasets, actives, readies) < 0) ? -1 : 0;
            PyObject *conditions = rc == 0 ? get(pod, &f_conditions) : NULL;
            if (conditions != NULL && conditions != held) {
                ready_held = ready_in(conditions, PyTuple_GET_ITEM(constants, 2));
                Py_XSETREF(held, ready_held < 0 ? NULL : Py_NewRef(conditions));
            }
            rc = conditions == NULL || ready_held < 0 ? -1 : index_one(pod, &x, what_removed, what_condition,
                                                                       ready_held, constants, actives, readies, mark);
            Py_XDECREF(conditions);
        }
        Py_XDECREF(name);
        Py_XDECREF(kind);
        Py_XDECREF(owner);
        Py_DECREF(pod);
    }
    clear_indexes(&x);
    Py_XDECREF(held);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"account_bound", account_bound, METH_VARARGS,
     "account_bound(pods, by_node, nodes, default_cpu, default_memory) -> list of the pods' nodes found."},
    {"admit_all", admit_all, METH_VARARGS,
     "admit_all(pods, kubelets, nodes) -> list of (kubelet, pod), or None where a pod needs pod_bound."},
    {"add_containers", add_containers, METH_VARARGS,
     "add_containers(admitted, containers, now, add, open_batch): each container held and its start due."},
    {"take_run", take_run, METH_VARARGS,
     "take_run(run, infos, pods, limit, labels, fields, values, active, in_flight) -> (taken, pending info)."},
    {"start_batch", start_batch, METH_VARARGS,
     "start_batch(batch, machine_of, pods, number) -> list of the pods whose Running report is written."},
    {"index_replicaset_pods", index_replicaset_pods, METH_VARARGS,
     "index_replicaset_pods(what, pods, replicasets, actives, readies, on_pod, mark, constants): the pods indexed."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_binds", NULL, -1, methods};

PyMODINIT_FUNC PyInit__binds(void)
{
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if ((fields[i]->name = PyUnicode_InternFromString(fields[i]->text)) == NULL)
            return NULL;
        fields[i]->offset = -1;
    }
    if ((one = PyLong_FromLong(1)) == NULL || (s_signalling = PyUnicode_InternFromString("signalling")) == NULL
        || (s_shutdown = PyUnicode_InternFromString("shutdown")) == NULL || (stop_mark = PyList_New(0)) == NULL
        || (s_ready = PyUnicode_InternFromString("Ready")) == NULL
        || (s_replicaset = PyUnicode_InternFromString("ReplicaSet")) == NULL
        || (s_removed = PyUnicode_InternFromString("removed")) == NULL
        || (s_condition = PyUnicode_InternFromString("condition")) == NULL)
        return NULL;
    return PyModule_Create(&module);
}
