//! Callees that share a qualified name: overloads told apart by a call's arguments, a C
//! function and the macro or the `static` twin of the same name. The suite names edges by
//! qualified name, which these share: here each callee is named by its signature, so that the
//! one a call means, and the ones it does not, are seen.

use std::collections::BTreeSet;

use cc_graph::{CallGraph, NodeRef};

use crate::support::records;

/// `caller -> callee signature`, ` [possible]` for a possible edge.
fn edges(fixture: &str) -> BTreeSet<String> {
    let g = CallGraph::build(&records(fixture));
    g.edges()
        .into_iter()
        .filter_map(|(a, b, d)| {
            let (NodeRef::Symbol(a), NodeRef::Symbol(b)) = (a, b) else { return None };
            let caller = g.symbol(a)?.qualified_name.clone();
            let callee = g.symbol(b)?.signature.clone();
            Some(format!("{caller} -> {callee}{}", if d.ambiguous { " [possible]" } else { "" }))
        })
        .collect()
}

/// The edges into the callee whose signature is `sig`.
fn callers<'a>(edges: &'a BTreeSet<String>, sig: &str) -> Vec<&'a str> {
    edges
        .iter()
        .filter(|e| e.split_once(" -> ").is_some_and(|(_, c)| c.trim_end_matches(" [possible]") == sig))
        .map(String::as_str)
        .collect()
}

#[test]
fn java_a_call_means_the_overload_its_argument_count_fits() {
    let e = edges(
        r#"
//- /src/com/acme/Json.java
package com.acme;

public class Json {
    public String toJson(Object src) {
        return toJson(src, src.getClass());
    }

    public String toJson(Object src, Class<?> type) {
        return type.getName();
    }

    public String toJson(Object src, Class<?> type, boolean pretty) {
        return toJson(src, type);
    }

    static String join(String sep, String... parts) {
        return sep;
    }

    static String join(String sep) {
        return join(sep, "a", "b");
    }
}
//- /src/com/acme/Main.java
package com.acme;

public class Main {
    String run(Json json, Object o) {
        return json.toJson(o);
    }
}
"#,
    );
    assert_eq!(
        callers(&e, "public String toJson(Object src)"),
        ["com.acme.Main.run -> public String toJson(Object src)"]
    );
    assert_eq!(
        callers(&e, "public String toJson(Object src, Class<?> type)"),
        ["com.acme.Json.toJson -> public String toJson(Object src, Class<?> type)"],
        "{e:#?}"
    );
    assert_eq!(callers(&e, "public String toJson(Object src, Class<?> type, boolean pretty)"), Vec::<&str>::new());
    assert_eq!(
        callers(&e, "static String join(String sep, String... parts)"),
        ["com.acme.Json.join -> static String join(String sep, String... parts)"]
    );
    // `join(sep, "a", "b")` is not a recursive call.
    assert_eq!(callers(&e, "static String join(String sep)"), Vec::<&str>::new());
}

#[test]
fn java_a_count_two_overloads_take_stays_possible_between_those_two() {
    let e = edges(
        r#"
//- /src/com/acme/Props.java
package com.acme;

public class Props {
    void put(String key) {
    }

    void put(String key, int value) {
    }

    void put(String key, String value) {
    }

    void setup(Config c) {
        put("retries", c.get("retries"));
    }
}
"#,
    );
    let got: Vec<&str> = e.iter().filter(|x| x.starts_with("com.acme.Props.setup ->")).map(String::as_str).collect();
    assert_eq!(
        got,
        [
            "com.acme.Props.setup -> void put(String key, String value) [possible]",
            "com.acme.Props.setup -> void put(String key, int value) [possible]",
        ]
    );
}

/// Of overloads one call's argument count fits, the ones its arguments' types fit (Java's
/// invocation conversions as far as the call's text shows the types: a literal, `this`, a
/// `new`, a variable's declared type); fixed arity before varargs; then the most specific.
#[test]
fn java_overloads_of_one_arity_are_told_apart_by_the_arguments_types() {
    let e = edges(
        r#"
//- /src/p/Tokeniser.java
package p;

class Token {
}

class StartTag extends Token {
}

class Outer {
    static class Inner extends Token {
    }
}

class Tokeniser {
    void error(State state) {
    }

    void error(String msg) {
    }

    void error(String msg, Object... args) {
    }

    void emit(char c) {
    }

    void emit(String s) {
    }

    void emit(Token t) {
    }

    void emit(Object o) {
    }

    void emit(long n) {
    }
}
//- /src/p/State.java
package p;

enum State {
    DATA {
        void read(Tokeniser t) {
            t.error(this);
        }
    };

    abstract void read(Tokeniser t);
}
//- /src/p/Reader.java
package p;

class Reader {
    void literals(Tokeniser t) {
        t.error("bad");
        t.emit('x');
        t.emit(3);
        t.emit(null);
    }

    void varargs(Tokeniser t) {
        t.error("bad %s", 1);
    }

    void variables(Tokeniser t) {
        StartTag tag = new StartTag();
        t.emit(tag);
        String s = "";
        t.emit(s);
        t.emit(new Reader());
        char c = 'y';
        t.emit(c);
    }

    void nested(Tokeniser t) {
        t.emit(new Outer.Inner());
    }
}
"#,
    );
    let of = |caller: &str| -> Vec<&str> {
        e.iter().filter(|x| x.starts_with(&format!("{caller} ->"))).map(|x| x.split_once(" -> ").unwrap().1).collect()
    };
    assert_eq!(of("p.State.DATA.read"), ["void error(State state)"], "{e:#?}");
    // `'x'` is a char, `3` an int that widens to long only; `null` fits every reference
    // type, and of those `String`, `Token` and `Object` none is the most specific.
    assert_eq!(
        of("p.Reader.literals"),
        [
            "void emit(String s) [possible]",
            "void emit(Token t) [possible]",
            "void emit(Object o) [possible]",
            "void emit(char c)",
            "void emit(long n)",
            "void error(String msg)",
        ]
        .into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>(),
        "{e:#?}"
    );
    assert_eq!(of("p.Reader.varargs"), ["void error(String msg, Object... args)"], "{e:#?}");
    // A StartTag is a Token (the most specific of Token and Object); a Reader only an Object;
    // a char variable a char.
    assert_eq!(
        of("p.Reader.variables").into_iter().filter(|x| x.starts_with("void")).collect::<Vec<_>>(),
        ["void emit(Object o)", "void emit(String s)", "void emit(Token t)", "void emit(char c)"],
        "{e:#?}"
    );
    // A nested class made by its qualified name.
    assert_eq!(of("p.Reader.nested"), ["static class Inner extends Token", "void emit(Token t)"], "{e:#?}");
}

#[test]
fn java_constructors_are_picked_by_argument_count() {
    let e = edges(
        r#"
//- /src/com/acme/geo/Base.java
package com.acme.geo;

public class Base {
    public Base(String name) {
    }

    public Base(String name, int rank) {
    }
}
//- /src/com/acme/geo/Point.java
package com.acme.geo;

public class Point extends Base {
    public Point() {
        this(0, 0);
    }

    public Point(int x) {
        super("point");
    }

    public Point(int x, int y) {
        super("point", 2);
    }
}
//- /src/com/acme/geo/Shapes.java
package com.acme.geo;

public class Shapes {
    Point origin() {
        return new Point(0, 0);
    }

    Point unit() {
        return new Point(1);
    }
}
"#,
    );
    assert_eq!(
        callers(&e, "public Point(int x, int y)"),
        [
            "com.acme.geo.Point.Point -> public Point(int x, int y)",
            "com.acme.geo.Shapes.origin -> public Point(int x, int y)"
        ],
        "{e:#?}"
    );
    assert_eq!(callers(&e, "public Point(int x)"), ["com.acme.geo.Shapes.unit -> public Point(int x)"]);
    assert_eq!(callers(&e, "public Point()"), Vec::<&str>::new());
    assert_eq!(callers(&e, "public Base(String name)"), ["com.acme.geo.Point.Point -> public Base(String name)"]);
    assert_eq!(
        callers(&e, "public Base(String name, int rank)"),
        ["com.acme.geo.Point.Point -> public Base(String name, int rank)"]
    );
}

#[test]
fn csharp_kotlin_and_cpp_overloads_by_argument_count() {
    let cs = edges(
        r#"
//- /src/Log.cs
namespace Acme
{
    public class Log
    {
        public void Write(string msg) { Write(msg, 0, true); }
        public void Write(string msg, int level, bool flush = false) { }
        public void Write(string msg, params object[] args) { }
        public Log() : this("app") { }
        public Log(string name) { }
        public Log(string name, int level) { }
    }
}
"#,
    );
    assert_eq!(
        callers(&cs, "public void Write(string msg, int level, bool flush = false)"),
        ["Acme.Log.Write -> public void Write(string msg, int level, bool flush = false)"]
    );
    assert_eq!(callers(&cs, "public void Write(string msg, params object[] args)"), Vec::<&str>::new());
    assert_eq!(callers(&cs, "public Log(string name)"), ["Acme.Log.Log -> public Log(string name)"]);
    assert_eq!(callers(&cs, "public Log(string name, int level)"), Vec::<&str>::new());

    let kt = edges(
        r#"
//- /src/main/kotlin/acme/Log.kt
package acme

class Log(val name: String) {
    constructor(name: String, level: Int) : this(name)

    fun write(msg: String) = write(msg, 0)

    fun write(msg: String, level: Int, vararg tags: String) {}

    fun write(msg: String, level: Int, flush: Boolean) {}
}

fun make(): Log = Log("app", 2)

fun app(): Log = Log("app")

fun retry(name: String, block: () -> Unit) {}

fun retry(block: () -> Unit) {}

fun start() {
    retry("a") { }
}
"#,
    );
    assert_eq!(
        callers(&kt, "fun write(msg: String, level: Int, vararg tags: String)"),
        ["acme.Log.write -> fun write(msg: String, level: Int, vararg tags: String)"],
        "{kt:#?}"
    );
    assert_eq!(callers(&kt, "fun write(msg: String, level: Int, flush: Boolean)"), Vec::<&str>::new());
    // A trailing lambda is an argument.
    assert_eq!(
        callers(&kt, "fun retry(name: String, block: () -> Unit)"),
        ["acme.start -> fun retry(name: String, block: () -> Unit)"]
    );
    assert_eq!(callers(&kt, "fun retry(block: () -> Unit)"), Vec::<&str>::new());
    // The primary constructor is the class's own parameter list.
    assert_eq!(
        callers(&kt, "class Log(val name: String)"),
        ["acme.Log.constructor -> class Log(val name: String)", "acme.app -> class Log(val name: String)"]
    );
    assert_eq!(
        callers(&kt, "constructor(name: String, level: Int) : this(name)"),
        ["acme.make -> constructor(name: String, level: Int) : this(name)"],
        "{kt:#?}"
    );

    let cpp = edges(
        r#"
//- /src/log.cpp
class Log {
public:
    void write(const char* msg) { write(msg, 0); }
    void write(const char* msg, int level, bool flush = false) {}
    void write(const char* msg, int level, int a, int b) {}
};
"#,
    );
    assert_eq!(
        callers(&cpp, "void write(const char* msg, int level, bool flush = false)"),
        ["Log::write -> void write(const char* msg, int level, bool flush = false)"],
        "{cpp:#?}"
    );
    assert_eq!(callers(&cpp, "void write(const char* msg, int level, int a, int b)"), Vec::<&str>::new());
}

#[test]
fn csharp_overloads_of_one_arity_are_told_apart_by_the_arguments_types() {
    let e = edges(
        r#"
//- /src/Data/Table.cs
namespace Acme.Data
{
    public class Table
    {
        public int Get(string key) => 1;
        public int Get(int key) => 2;
        public int Get(object key) => 3;
        public int Get(System.Text.StringBuilder key) => 4;
    }

    public static class TableExt
    {
        public static int Put(this Table t, string key) => 1;
        public static int Put(this Table t, double key) => 2;
    }

    public class Reader
    {
        public int Literals(Table t) => t.Get("x") + t.Get(1);

        public int Variables(Table t, string name, int n, object boxed) => t.Get(name) + t.Get(n) + t.Get(boxed);

        public int Casts(Table t, string name) => t.Get((object)name);

        public int Extensions(Table t) => t.Put("y") + t.Put(2.5) + TableExt.Put(t, "z");
    }
}
"#,
    );
    let of = |caller: &str| -> Vec<&str> {
        e.iter()
            .filter(|x| x.starts_with(&format!("Acme.Data.Reader.{caller} ->")))
            .map(|x| x.split_once(" -> ").unwrap().1)
            .collect()
    };
    assert_eq!(of("Literals"), ["public int Get(int key)", "public int Get(string key)"], "{e:#?}");
    // (A string is no StringBuilder: `Get(StringBuilder)` is never one of them.)
    // A variable's declared type, `object` too: an object fits `Get(object)` only.
    assert_eq!(
        of("Variables"),
        ["public int Get(int key)", "public int Get(object key)", "public int Get(string key)"],
        "{e:#?}"
    );
    assert_eq!(of("Casts"), ["public int Get(object key)"], "{e:#?}");
    // An extension called on a value: the value is its `this`, the argument its next
    // parameter; called through its class, the first argument is the `this`.
    assert_eq!(
        of("Extensions"),
        ["public static int Put(this Table t, double key)", "public static int Put(this Table t, string key)"],
        "{e:#?}"
    );
}

/// C: a macro that renames a function (`#define compress z_compress`, where some `#if` puts
/// it in force) renames its definition too, so a call of the name reaches the function, not
/// the macro; a `static` function is seen only in its own source file.
#[test]
fn c_a_call_reaches_the_function_a_macro_renames_and_no_static_of_another_file() {
    let e = edges(
        r#"
//- /src/zconf.h
#ifdef Z_PREFIX
#  define compress z_compress
#endif
//- /src/compress.c
#include "zconf.h"
int compress(int n) { return n; }
//- /src/minigzip.c
#include "zconf.h"
static int gzread(int f) { return f; }
int gz_uncompress(int f) { return gzread(f) + compress(f); }
//- /src/gzread.c
int gzread(int f) { return f + 1; }
//- /src/example.c
#include "zconf.h"
int test(void) { return compress(1) + gzread(2); }
"#,
    );
    let want = [
        "gz_uncompress -> int compress(int n)",
        "gz_uncompress -> static int gzread(int f)",
        "test -> int compress(int n)",
        "test -> int gzread(int f)",
    ];
    assert_eq!(e.iter().map(String::as_str).collect::<Vec<_>>(), want);
}

/// C++: a method defined both in a generator's input (`lexer.in.cc`, re2c's) and in the
/// source made from it (`lexer.cc`) is the made one's; alone, the input's is still found.
#[test]
fn cpp_a_generator_input_gives_way_to_what_it_makes() {
    let e = edges(
        r#"
//- /src/lexer.h
class Lexer {
public:
    bool Error(const char* message);
    bool Peek();
};
//- /src/lexer.in.cc
#include "lexer.h"
bool Lexer::Error(const char* message) { return false; }
bool Lexer::Peek() { return true; }
//- /src/lexer.cc
#include "lexer.h"
bool Lexer::Error(const char* m) { return false; }
//- /src/parser.cc
#include "lexer.h"
bool parse(Lexer& lexer) { return lexer.Error("x") && lexer.Peek(); }
"#,
    );
    let want = ["parse -> bool Lexer::Error(const char* m)", "parse -> bool Lexer::Peek()"];
    assert_eq!(e.iter().filter(|x| x.starts_with("parse ")).map(String::as_str).collect::<Vec<_>>(), want);
}

/// C++: `Status s;` runs the constructor for no arguments, of the class's several.
#[test]
fn cpp_a_declared_variable_runs_the_constructor_for_no_arguments() {
    let e = edges(
        r#"
//- /src/status.h
class Status {
public:
    explicit Status(int code) : code_(code) {}
    Status() : code_(0) {}
private:
    int code_;
};
//- /src/db.cc
#include "status.h"
int Write() {
    Status s;
    Status t(2);
    return 0;
}
"#,
    );
    let want = ["Write -> Status() : code_(0)", "Write -> explicit Status(int code) : code_(code)"];
    assert_eq!(e.iter().filter(|x| x.starts_with("Write ")).map(String::as_str).collect::<Vec<_>>(), want);
}

/// Java: a method handle looked up by name with a `MethodType` (inline or from a variable)
/// means the overload whose parameters the type lists (widening and boxing as a call's).
#[test]
fn java_a_method_handle_means_the_overload_its_method_type_names() {
    let e = edges(
        r#"
//- /src/spm/Handles.java
package spm;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

class Handles {
    public static void method(int i) {}

    public static void method(byte b) {}

    public static void boxed(int i) {}

    public static void boxed(Integer i) {}

    public static void other(MyObject o) {}

    public static void other(MyString s) {}

    public static void byVariable() throws Throwable {
        MethodType descriptor = MethodType.methodType(void.class, int.class);
        MethodHandle mh = MethodHandles.lookup().findStatic(Handles.class, "method", descriptor);
        mh.invoke((byte) 42);
    }

    public static void unboxed() throws Throwable {
        MethodType descriptor = MethodType.methodType(void.class, int.class);
        MethodHandles.lookup().findStatic(Handles.class, "boxed", descriptor).invoke(Integer.valueOf(1));
    }

    public static void inline() throws Throwable {
        MethodHandle mh = MethodHandles.lookup().findStatic(Handles.class, "other", MethodType.methodType(void.class, MyObject.class));
        mh.invoke(new MyString());
    }
}

class MyObject {}

final class MyString extends MyObject {}
"#,
    );
    let picked: Vec<&str> = e
        .iter()
        .filter(|x| ["void method(", "void other(", "void boxed("].iter().any(|m| x.contains(m)))
        .map(String::as_str)
        .collect();
    assert_eq!(
        picked,
        [
            "spm.Handles.byVariable -> public static void method(int i)",
            "spm.Handles.inline -> public static void other(MyObject o)",
            "spm.Handles.unboxed -> public static void boxed(int i)"
        ]
    );
}
