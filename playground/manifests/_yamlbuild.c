/* The documents of a YAML text built straight from libyaml's parse events (yamlload.py).
 *
 * PyYAML's libyaml parser hands Python one event object and two mark objects per event; at 3.7
 * million events for 15,000 pods that is most of the time of reading a `kubectl get -o yaml` dump.
 * This loop reads the same events in C and builds the mappings, sequences and strings itself. A
 * plain scalar is resolved by the Python function it is given (the SafeLoader's resolver and
 * constructors, cached by value in `scalars`). Anything kubectl does not write (an anchor, an alias,
 * a tag) and any error raise an exception: yamlload.py then leaves the text to PyYAML's loader,
 * which gives its own result or its own error.
 *
 * build(text: str, plain: callable, scalars: dict, max_depth: int) -> list of documents
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <yaml.h>

static PyObject *Unusual;  /* raised for what the builder leaves to PyYAML's loader */

/* A container being filled: the object, and for a mapping the key waiting for its value. */
typedef struct {
    PyObject *container;
    PyObject *key;
    int mapping;
} Frame;

typedef struct {
    Frame *frames;
    Py_ssize_t depth;
    Py_ssize_t size;
    Py_ssize_t max_depth;  /* deeper documents are left to PyYAML's loader (yamlload.MAX_DEPTH) */
} Stack;

static void stack_clear(Stack *stack) {
    for (Py_ssize_t i = 0; i < stack->depth; i++) {
        Py_XDECREF(stack->frames[i].container);
        Py_XDECREF(stack->frames[i].key);
    }
    PyMem_Free(stack->frames);
    stack->frames = NULL;
    stack->depth = stack->size = 0;
}

static int unusual(const char *what) {
    PyErr_SetString(Unusual, what);
    return -1;
}

static int stack_push(Stack *stack, PyObject *container, int mapping) {
    if (stack->depth == stack->max_depth) {
        Py_DECREF(container);
        return unusual("deeply nested");
    }
    if (stack->depth == stack->size) {
        Py_ssize_t size = stack->size ? 2 * stack->size : 32;
        Frame *frames = PyMem_Realloc(stack->frames, size * sizeof(Frame));
        if (frames == NULL) {
            Py_DECREF(container);
            PyErr_NoMemory();
            return -1;
        }
        stack->frames = frames;
        stack->size = size;
    }
    Frame *frame = &stack->frames[stack->depth++];
    frame->container = container;  /* (the reference is the stack's) */
    frame->key = NULL;
    frame->mapping = mapping;
    return 0;
}

/* The value of a scalar event: a string, or for a plain one what `plain` resolves it to. */
static PyObject *scalar_value(yaml_event_t *event, PyObject *plain, PyObject *scalars) {
    PyObject *text = PyUnicode_DecodeUTF8((const char *)event->data.scalar.value,
                                          (Py_ssize_t)event->data.scalar.length, "strict");
    if (text == NULL || !event->data.scalar.plain_implicit)
        return text;  /* quoted, literal or folded: a string */
    PyObject *value = PyDict_GetItemWithError(scalars, text);
    if (value != NULL) {
        Py_INCREF(value);
        Py_DECREF(text);
        return value;
    }
    if (PyErr_Occurred()) {
        Py_DECREF(text);
        return NULL;
    }
    value = PyObject_CallOneArg(plain, text);
    Py_DECREF(text);
    return value;
}

/* Put `value` (a new reference, taken) into the container on top; 1 when it was the document's root. */
static int attach(Stack *stack, PyObject *value, PyObject **root) {
    if (stack->depth == 0) {
        *root = value;
        return 1;
    }
    Frame *top = &stack->frames[stack->depth - 1];
    int failed;
    if (!top->mapping) {
        failed = PyList_Append(top->container, value);
        Py_DECREF(value);
    } else if (top->key == NULL) {
        top->key = value;
        return 0;
    } else {
        failed = PyDict_SetItem(top->container, top->key, value);  /* (an unhashable key fails here) */
        Py_DECREF(value);
        Py_CLEAR(top->key);
    }
    return failed ? -1 : 0;
}

/* One event of a document; 1 once the document's root is complete, -1 on an error. */
static int document_event(yaml_event_t *event, Stack *stack, PyObject *plain, PyObject *scalars,
                          PyObject **root) {
    PyObject *value;
    switch (event->type) {
    case YAML_SCALAR_EVENT:
        if (event->data.scalar.anchor != NULL || event->data.scalar.tag != NULL)
            return unusual("an anchor or a tag");
        value = scalar_value(event, plain, scalars);
        if (value == NULL)
            return -1;
        return attach(stack, value, root);
    case YAML_SEQUENCE_START_EVENT:
        if (event->data.sequence_start.anchor != NULL || event->data.sequence_start.tag != NULL)
            return unusual("an anchor or a tag");
        value = PyList_New(0);
        return value == NULL ? -1 : stack_push(stack, value, 0);
    case YAML_MAPPING_START_EVENT:
        if (event->data.mapping_start.anchor != NULL || event->data.mapping_start.tag != NULL)
            return unusual("an anchor or a tag");
        value = PyDict_New();
        return value == NULL ? -1 : stack_push(stack, value, 1);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
        /* (an end that does not close what is open is a parser's fault: PyYAML's is left to say) */
        int mapping = event->type == YAML_MAPPING_END_EVENT;
        if (stack->depth == 0 || stack->frames[stack->depth - 1].mapping != mapping
                || stack->frames[stack->depth - 1].key != NULL)
            return unusual("an end that closes nothing open");
        Frame *top = &stack->frames[--stack->depth];
        return attach(stack, top->container, root);
    }
    default:  /* an alias, or an event a document cannot hold here */
        return unusual("an alias");
    }
}

static int parse(yaml_parser_t *parser, yaml_event_t *event) {
    if (yaml_parser_parse(parser, event))
        return 0;
    PyErr_Format(Unusual, "libyaml: %s", parser->problem ? parser->problem : "error");
    return -1;
}

static PyObject *build(PyObject *self, PyObject *args) {
    PyObject *text, *plain, *scalars;
    Py_ssize_t max_depth;
    if (!PyArg_ParseTuple(args, "UOO!n", &text, &plain, &PyDict_Type, &scalars, &max_depth))
        return NULL;
    Py_ssize_t size;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &size);
    if (utf8 == NULL)
        return NULL;
    PyObject *documents = PyList_New(0);
    if (documents == NULL)
        return NULL;
    yaml_parser_t parser;
    yaml_event_t event;
    Stack stack = {NULL, 0, 0, max_depth};
    if (!yaml_parser_initialize(&parser)) {
        Py_DECREF(documents);
        return PyErr_NoMemory();
    }
    /* (the encoding left to libyaml, as PyYAML leaves it: a leading BOM is the encoding's mark) */
    yaml_parser_set_input_string(&parser, (const unsigned char *)utf8, (size_t)size);
    int failed = 0, in_document = 0, done = 0;
    while (!failed && !done) {
        if (parse(&parser, &event) < 0) {
            failed = 1;
            break;
        }
        if (in_document) {
            PyObject *root = NULL;
            int status = document_event(&event, &stack, plain, scalars, &root);
            if (status < 0) {
                failed = 1;
            } else if (status == 1) {
                failed = PyList_Append(documents, root) < 0;
                Py_DECREF(root);
                in_document = 0;
            }
        } else if (event.type == YAML_DOCUMENT_START_EVENT) {
            in_document = 1;
        } else if (event.type == YAML_STREAM_END_EVENT) {
            done = 1;
        }  /* (the stream's start and each document's end carry nothing) */
        yaml_event_delete(&event);
    }
    stack_clear(&stack);
    yaml_parser_delete(&parser);
    if (failed) {
        Py_DECREF(documents);
        return NULL;
    }
    return documents;
}

static PyMethodDef methods[] = {
    {"build", build, METH_VARARGS, "build(text, plain, scalars, max_depth): the documents of a YAML text."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_yamlbuild", NULL, -1, methods};

PyMODINIT_FUNC PyInit__yamlbuild(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Unusual = PyErr_NewException("playground.manifests._yamlbuild.Unusual", NULL, NULL);
    if (Unusual == NULL || PyModule_AddObjectRef(m, "Unusual", Unusual) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
