// Reference call graph of a Java tree, by javac: every method invocation and instance creation
// attributed by the compiler, its element's declaration looked up in the same compilation.
//
//   java --add-exports jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED RefJava.java ROOT > ref.json
//
// Output: the same JSON as ref_python.py. Defs are methods, constructors and classes (a
// constructor's name is its class's); a call in a lambda or an anonymous class belongs to the
// method around it, one in a field initialiser or an initialiser block to its class. The
// target of a virtual call is the method the static type declares; a call whose target is
// abstract or an interface's method is left unresolved (which implementation runs is the
// runtime's choice), and so are calls of methods the compilation cannot find. What javac
// adds itself (default constructors, their `super()`) is left out.
import com.sun.source.tree.*;
import com.sun.source.util.*;
import com.sun.tools.javac.tree.JCTree;
import javax.lang.model.element.*;
import javax.tools.*;
import java.io.*;
import java.nio.file.*;
import java.util.*;
import java.util.stream.*;

public class RefJava {
    static Path root;
    static Trees trees;
    static StringBuilder defs = new StringBuilder(), edges = new StringBuilder(), unres = new StringBuilder();
    static int external = 0, methodRefs = 0;
    static Map<String, Integer> why = new TreeMap<>();

    static String q(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 32) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static String rel(CompilationUnitTree u) {
        return root.relativize(Paths.get(u.getSourceFile().toUri())).toString();
    }

    static long line(CompilationUnitTree u, long pos) {
        return u.getLineMap().getLineNumber(pos);
    }

    /** Key of a method or class tree: path:line of its name. */
    static String key(CompilationUnitTree u, Tree t) {
        return rel(u) + ":" + line(u, ((JCTree) t).pos);
    }

    static void comma(StringBuilder b) {
        if (b.length() > 0) b.append(',');
    }

    public static void main(String[] args) throws Exception {
        root = Paths.get(args[0]).toAbsolutePath().normalize();
        List<File> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(p -> p.toString().endsWith(".java") && !p.getFileName().toString().equals("module-info.java"))
                    .sorted().map(Path::toFile).collect(Collectors.toList());
        }
        JavaCompiler c = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager fm = c.getStandardFileManager(null, null, null);
        DiagnosticListener<JavaFileObject> quiet = d -> {};
        JavacTask task = (JavacTask) c.getTask(null, fm, quiet,
                List.of("-proc:none", "-implicit:none", "-Xmaxerrs", "100000", "-sourcepath", root.toString()),
                null, fm.getJavaFileObjectsFromFiles(files));
        List<CompilationUnitTree> units = new ArrayList<>();
        task.parse().forEach(units::add);
        task.analyze();
        trees = Trees.instance(task);
        for (CompilationUnitTree u : units) scan(u);
        System.out.print("{\"tool\":" + q("javac " + System.getProperty("java.version")) + ",\"defs\":{" + defs
                + "},\"edges\":[" + edges + "],\"unresolved\":[" + unres + "],\"skipped\":{\"method reference\":" + methodRefs
                + "},\"external_sites\":" + external + "}");
    }

    static void scan(CompilationUnitTree u) {
        new TreePathScanner<Void, Void>() {
            Deque<String> scope = new ArrayDeque<>();
            Deque<String> classes = new ArrayDeque<>();

            String caller() {
                return scope.isEmpty() ? "<" + rel(u) + ">" : scope.peek();
            }

            void def(Tree t, String name, String kind, boolean ctor, String bases) {
                String k = key(u, t);
                long end = line(u, trees.getSourcePositions().getEndPosition(u, t));
                comma(defs);
                defs.append(q(k)).append(":{\"path\":").append(q(rel(u))).append(",\"name\":").append(q(name))
                        .append(",\"line\":").append(line(u, ((JCTree) t).pos)).append(",\"end\":").append(end)
                        .append(",\"kind\":").append(q(kind)).append(",\"class\":")
                        .append(classes.isEmpty() || kind.equals("class") ? "null" : q(classes.peek()))
                        .append(",\"ctor\":").append(ctor).append(",\"in_lambda\":false")
                        .append(bases == null ? "" : ",\"bases\":[" + bases + "]").append('}');
            }

            @Override
            public Void visitClass(ClassTree t, Void v) {
                if (t.getSimpleName().length() == 0) {  // anonymous: its code belongs to the method around it
                    return super.visitClass(t, v);
                }
                String bases = "";
                Tree ext = t.getExtendsClause();
                if (ext != null) {
                    Element e = trees.getElement(new TreePath(getCurrentPath(), ext));
                    String bk = e == null ? null : declKey(e);
                    if (bk != null) bases = q(bk);
                }
                def(t, t.getSimpleName().toString(), "class", false, bases);
                classes.push(key(u, t));
                scope.push(key(u, t));
                super.visitClass(t, v);
                scope.pop();
                classes.pop();
                return null;
            }

            boolean synthetic(Tree t) {
                // what javac adds (a default constructor, its `super()`) has no end position
                return trees.getSourcePositions().getEndPosition(u, t) == Diagnostic.NOPOS;
            }

            @Override
            public Void visitMethod(MethodTree t, Void v) {
                if (synthetic(t)) return null;
                boolean ctor = t.getName().contentEquals("<init>");
                String name = ctor ? u.getLineMap() == null ? "" : enclosingClassName() : t.getName().toString();
                def(t, name, t.getBody() == null ? "abstract" : "function", ctor, null);
                scope.push(key(u, t));
                super.visitMethod(t, v);
                scope.pop();
                return null;
            }

            String enclosingClassName() {
                for (TreePath p = getCurrentPath(); p != null; p = p.getParentPath())
                    if (p.getLeaf() instanceof ClassTree) return ((ClassTree) p.getLeaf()).getSimpleName().toString();
                return "";
            }

            String site(Tree at) {
                long pos = ((JCTree) at).pos;
                return rel(u) + ":" + line(u, pos) + ":" + u.getLineMap().getColumnNumber(pos);
            }

            void unresolved(Tree at, String w) {
                comma(unres);
                unres.append("{\"caller\":").append(q(caller())).append(",\"site\":").append(q(site(at)))
                        .append(",\"why\":").append(q(w)).append('}');
            }

            void edge(Tree at, Element e, boolean construct) {
                if (e == null || e.asType().getKind().toString().equals("ERROR")) {
                    unresolved(at, "not resolved");
                    return;
                }
                String k = declKey(e);
                if (k == null) {
                    if (e.getKind() == ElementKind.CONSTRUCTOR && declKey(e.getEnclosingElement()) != null) {
                        k = declKey(e.getEnclosingElement());  // the default constructor: the class
                    } else {
                        external++;
                        return;
                    }
                }
                if (e instanceof ExecutableElement && (e.getModifiers().contains(Modifier.ABSTRACT)
                        || (e.getEnclosingElement().getKind() == ElementKind.INTERFACE && !e.getModifiers().contains(Modifier.DEFAULT)
                            && !e.getModifiers().contains(Modifier.STATIC)))) {
                    unresolved(at, "abstract or interface method");
                    return;
                }
                comma(edges);
                edges.append("{\"caller\":").append(q(caller())).append(",\"callee\":").append(q(k)).append(",\"site\":")
                        .append(q(site(at))).append(",\"how\":").append(q(construct ? "construct" : "call")).append('}');
            }

            @Override
            public Void visitMethodInvocation(MethodInvocationTree t, Void v) {
                if (synthetic(t)) return super.visitMethodInvocation(t, v);
                Element e = trees.getElement(getCurrentPath());
                ExpressionTree sel = t.getMethodSelect();
                String n = sel instanceof MemberSelectTree ? ((MemberSelectTree) sel).getIdentifier().toString()
                        : sel instanceof IdentifierTree ? ((IdentifierTree) sel).getName().toString() : "";
                edge(sel, e, n.equals("super") || n.equals("this"));
                return super.visitMethodInvocation(t, v);
            }

            @Override
            public Void visitNewClass(NewClassTree t, Void v) {
                Element e = trees.getElement(getCurrentPath());
                if (t.getClassBody() != null) {  // anonymous class: the class it extends
                    e = trees.getElement(new TreePath(getCurrentPath(), t.getIdentifier()));
                    if (e != null && e.getKind().isInterface()) e = null;
                    if (e == null) {
                        return super.visitNewClass(t, v);
                    }
                }
                edge(t.getIdentifier(), e, true);
                return super.visitNewClass(t, v);
            }

            @Override
            public Void visitMemberReference(MemberReferenceTree t, Void v) {
                methodRefs++;
                return super.visitMemberReference(t, v);
            }
        }.scan(u, null);
    }

    /** path:line key of an element declared in the compilation, else null. */
    static String declKey(Element e) {
        TreePath p = trees.getPath(e);
        if (p == null) return null;
        Tree t = p.getLeaf();
        if (!(t instanceof MethodTree) && !(t instanceof ClassTree)) return null;
        return key(p.getCompilationUnit(), t);
    }
}
