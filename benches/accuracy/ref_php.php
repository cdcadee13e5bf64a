<?php
/*
 * Reference call graph of a PHP code base, by PHP's own parser (the php-ast extension:
 * the AST PHP compiles) and PHP's compile-time name resolution.
 *
 *     php ref_php.php FOLDER > ref.json
 *
 * Every `.php` file of FOLDER is parsed (`ast\parse_file`, AST version 90). Names resolve
 * as PHP's compiler resolves them: a class name through the `use` imports of its namespace
 * block, else into the current namespace (`\A\B` as written; `namespace\A` into the current
 * one); a function name through `use function`, else the current namespace's function when
 * the code base defines one, else the global one (PHP's run-time fallback). Calls:
 *
 * - `f()`: the function; one the code base does not define is external (counted);
 * - `C::m()`, `self::m()`, `parent::m()`, `static::m()`: the method the class declares or
 *   inherits (its traits first, then its parent), the enclosing class for `self` and
 *   `static` (the static target, as javac's reference gives), its parent for `parent`;
 * - `$this->m()` (`?->` too, in a method or a closure in one): the same lookup from the
 *   enclosing class (the static target);
 * - `new C(…)`: C's constructor (`__construct`, declared or inherited), else the class.
 *
 * A method found in the code base ends the lookup; a class whose lookup reaches a parent
 * from outside the code base without finding it is external (counted). Left unresolved, with
 * a reason: a call whose target is abstract or an interface's method (dynamic dispatch), a
 * method call on any other object (`$obj->m()`: the object's class is the run time's), a
 * call of a value (`$f()`, `$obj->$name()`, `C::$m()`, `new $cls`), a trait's call of a
 * method the trait does not declare (its user's), and a name the lookup does not find in a
 * class chain wholly in the code base (`__call`, `__callStatic`). Defs: functions, methods
 * with a body, classes, traits and enums (the line of the name), a closure assigned to a
 * variable (`$f = function () {…}`, named by the variable); a call in any other closure or
 * arrow function belongs to the def around it, a call outside any to the file's top level
 * (`<path>`). Output: the JSON of ref_python.py.
 */

const AST_VERSION = 90;

$folder = rtrim($argv[1] ?? '', '/');
if ($folder === '' || !is_dir($folder)) {
    fwrite(STDERR, "usage: php ref_php.php FOLDER\n");
    exit(2);
}

$files = [];
$it = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($folder, FilesystemIterator::SKIP_DOTS));
foreach ($it as $f) {
    if ($f->isFile() && str_ends_with($f->getFilename(), '.php')) {
        $files[] = substr($f->getPathname(), strlen($folder) + 1);
    }
}
sort($files, SORT_STRING);

$defs = [];        // key -> def
$classes = [];     // lower fq name -> ['key', 'parent' (lower fq|null), 'traits' [lower fq], 'methods' [lower => key|'abstract'], 'kind']
$functions = [];   // lower fq name -> key
$parsed = [];      // path -> [ast, lines]
$failed = [];

function name_line(array $lines, int $from, int $to, string $word, string $name): int
{
    $re = '/\b' . $word . '\s+&?\s*' . preg_quote($name, '/') . '\b/i';
    for ($l = $from; $l <= min($to, count($lines)); $l++) {
        if (preg_match($re, $lines[$l - 1])) {
            return $l;
        }
    }
    return $from;
}

/** The namespace blocks of a file: [namespace, uses, statements]. */
function blocks(ast\Node $file): array
{
    $out = [];
    $ns = '';
    $uses = ['class' => [], 'function' => []];
    $stmts = [];
    foreach ($file->children as $s) {
        if (!$s instanceof ast\Node) {
            continue;
        }
        if ($s->kind === ast\AST_NAMESPACE) {
            if ($stmts) {
                $out[] = [$ns, $uses, $stmts];
            }
            $ns = $s->children['name'] ?? '';
            $uses = ['class' => [], 'function' => []];
            $stmts = [];
            if ($s->children['stmts'] !== null) {
                foreach ($s->children['stmts']->children as $inner) {
                    if ($inner instanceof ast\Node) {
                        add_use($inner, $uses);
                    }
                }
                $out[] = [$ns, $uses, $s->children['stmts']->children];
                $ns = '';
                $uses = ['class' => [], 'function' => []];
            }
            continue;
        }
        add_use($s, $uses);
        $stmts[] = $s;
    }
    if ($stmts) {
        $out[] = [$ns, $uses, $stmts];
    }
    return $out;
}

function add_use(ast\Node $s, array &$uses): void
{
    $prefix = '';
    if ($s->kind === ast\AST_GROUP_USE) {
        $prefix = $s->children['prefix'] . '\\';
        $flags = $s->flags;
        $s = $s->children['uses'];
        $s->flags = $s->flags ?: $flags;
    } elseif ($s->kind !== ast\AST_USE) {
        return;
    }
    foreach ($s->children as $el) {
        $target = $prefix . $el->children['name'];
        $alias = $el->children['alias'] ?? substr(strrchr('\\' . $target, '\\'), 1);
        $type = $el->flags ?: $s->flags;
        if ($type === ast\flags\USE_FUNCTION) {
            $uses['function'][strtolower($alias)] = $target;
        } elseif ($type === ast\flags\USE_NORMAL) {
            $uses['class'][strtolower($alias)] = $target;
        }
    }
}

function qualify(string $ns, string $name): string
{
    return $ns === '' ? $name : $ns . '\\' . $name;
}

/** A class name as written (an AST_NAME) resolved: a lower fq name, or 'self' / 'static' / 'parent'. */
function class_name(ast\Node $n, string $ns, array $uses): string
{
    $name = $n->children['name'];
    if ($n->flags === ast\flags\NAME_FQ) {
        return strtolower(ltrim($name, '\\'));
    }
    if ($n->flags === ast\flags\NAME_RELATIVE) {
        return strtolower(qualify($ns, $name));
    }
    $lower = strtolower($name);
    if (in_array($lower, ['self', 'static', 'parent'], true)) {
        return $lower;
    }
    $parts = explode('\\', $name, 2);
    $first = strtolower($parts[0]);
    if (isset($uses['class'][$first])) {
        return strtolower($uses['class'][$first] . (isset($parts[1]) ? '\\' . $parts[1] : ''));
    }
    return strtolower(qualify($ns, $name));
}

// Pass 1: every def, class and function.
foreach ($files as $path) {
    $src = file_get_contents("$folder/$path");
    $lines = explode("\n", $src);
    try {
        $ast = ast\parse_file("$folder/$path", AST_VERSION);
    } catch (Throwable $e) {
        $failed[] = $path;
        continue;
    }
    $parsed[$path] = [$ast, $lines];
    foreach (blocks($ast) as [$ns, $uses, $stmts]) {
        $walk = function ($node, ?string $class) use (&$walk, &$defs, &$classes, &$functions, $ns, $uses, $path, $lines) {
            if (!$node instanceof ast\Node) {
                return;
            }
            if ($node->kind === ast\AST_CLASS && !($node->flags & ast\flags\CLASS_ANONYMOUS)) {
                $name = $node->children['name'];
                $fq = strtolower(qualify($ns, $name));
                $word = $node->flags & ast\flags\CLASS_INTERFACE ? 'interface'
                    : ($node->flags & ast\flags\CLASS_TRAIT ? 'trait' : ($node->flags & ast\flags\CLASS_ENUM ? 'enum' : 'class'));
                $line = name_line($lines, $node->lineno, $node->endLineno, $word, $name);
                $key = "$path:$line";
                $parent = $node->children['extends'] ? class_name($node->children['extends'], $ns, $uses) : null;
                $traits = [];
                foreach ($node->children['stmts']->children as $s) {
                    if ($s instanceof ast\Node && $s->kind === ast\AST_USE_TRAIT) {
                        foreach ($s->children['traits']->children as $t) {
                            $traits[] = class_name($t, $ns, $uses);
                        }
                    }
                }
                $classes[$fq] = ['key' => $key, 'parent' => $parent, 'traits' => $traits, 'methods' => [], 'kind' => $word];
                if ($word !== 'interface') {
                    $defs[$key] = ['path' => $path, 'name' => $name, 'line' => $line, 'end' => $node->endLineno,
                        'kind' => 'class', 'bases' => []];
                }
                foreach ($node->children['stmts']->children as $s) {
                    $walk($s, $fq);
                }
                return;
            }
            if ($node->kind === ast\AST_CLASS) {  // an anonymous class: its methods are no defs
                foreach ($node->children['stmts']->children as $s) {
                    $walk($s, null);
                }
                return;
            }
            if ($node->kind === ast\AST_METHOD && $class !== null) {
                $name = $node->children['name'];
                $abstract = $node->children['stmts'] === null;
                if ($abstract) {
                    $classes[$class]['methods'][strtolower($name)] = 'abstract';
                    return;
                }
                $line = name_line($lines, $node->lineno, $node->endLineno, 'function', $name);
                $key = "$path:$line";
                $classes[$class]['methods'][strtolower($name)] = $key;
                $d = ['path' => $path, 'name' => $name, 'line' => $line, 'end' => $node->endLineno, 'kind' => 'function'];
                if ($classes[$class]['kind'] !== 'interface') {
                    $d['class'] = $classes[$class]['key'];
                    if (strtolower($name) === '__construct') {
                        $d['ctor'] = true;
                    }
                }
                $defs[$key] = $d;
                $walk($node->children['stmts'], null);
                return;
            }
            if ($node->kind === ast\AST_FUNC_DECL) {
                $name = $node->children['name'];
                $line = name_line($lines, $node->lineno, $node->endLineno, 'function', $name);
                $key = "$path:$line";
                $functions[strtolower(qualify($ns, $name))] = $key;
                $defs[$key] = ['path' => $path, 'name' => $name, 'line' => $line, 'end' => $node->endLineno, 'kind' => 'function'];
                $walk($node->children['stmts'], null);
                return;
            }
            if ($node->kind === ast\AST_ASSIGN && $node->children['var'] instanceof ast\Node
                && $node->children['var']->kind === ast\AST_VAR && is_string($node->children['var']->children['name'])
                && $node->children['expr'] instanceof ast\Node
                && in_array($node->children['expr']->kind, [ast\AST_CLOSURE, ast\AST_ARROW_FUNC], true)) {
                $fn = $node->children['expr'];
                $key = "$path:{$node->lineno}";
                $defs[$key] = ['path' => $path, 'name' => $node->children['var']->children['name'], 'line' => $node->lineno,
                    'end' => $fn->endLineno ?? $node->lineno, 'kind' => 'function'];
            }
            foreach ($node->children as $c) {
                $walk($c, $class);
            }
        };
        foreach ($stmts as $s) {
            $walk($s, null);
        }
    }
}
foreach ($classes as $fq => $c) {
    if ($c['parent'] !== null && isset($classes[$c['parent']]) && isset($defs[$c['key']])
        && isset($defs[$classes[$c['parent']]['key']])) {
        $defs[$c['key']]['bases'][] = $classes[$c['parent']]['key'];
    }
}

/**
 * The method `$m` (lower) of class `$fq` as PHP finds it: [key|'abstract'|null, why null].
 * `null` with 'outside': the chain reaches a class from outside the code base.
 */
function find_method(string $fq, string $m, array $seen = []): array
{
    global $classes;
    if (!isset($classes[$fq])) {
        return [null, 'outside'];
    }
    if (isset($seen[$fq])) {
        return [null, 'missing'];
    }
    $seen[$fq] = true;
    $c = $classes[$fq];
    if (isset($c['methods'][$m])) {
        return [$c['methods'][$m], null];
    }
    $outside = false;
    foreach ($c['traits'] as $t) {
        [$k, $why] = find_method($t, $m, $seen);
        if ($k !== null) {
            return [$k, null];
        }
        $outside = $outside || $why === 'outside';
    }
    if ($c['parent'] !== null) {
        [$k, $why] = find_method($c['parent'], $m, $seen);
        if ($k !== null) {
            return [$k, null];
        }
        $outside = $outside || $why === 'outside';
    }
    return [null, $outside ? 'outside' : 'missing'];
}

// Pass 2: every call.
$edges = [];
$seen = [];
$unresolved = [];
$external = 0;
foreach ($parsed as $path => [$ast, $lines]) {
    foreach (blocks($ast) as [$ns, $uses, $stmts]) {
        $unresolve = function (?string $caller, int $line, string $why) use (&$unresolved, $path) {
            $unresolved[] = ['caller' => $caller, 'site' => "$path:$line:0", 'why' => $why];
        };
        $edge = function (string $caller, string $callee, int $line) use (&$edges, &$seen, $path) {
            $k = "$caller $callee $path:$line";
            if (!isset($seen[$k])) {
                $seen[$k] = true;
                $edges[] = ['caller' => $caller, 'callee' => $callee, 'site' => "$path:$line:0", 'how' => 'call'];
            }
        };
        // `$class`: the enclosing class (lower fq); `$caller`: the enclosing def's key.
        $walk = function ($node, ?string $class, string $caller) use (&$walk, &$external, $ns, $uses, $path, $lines, $unresolve, $edge) {
            global $classes, $functions, $defs;
            if (!$node instanceof ast\Node) {
                return;
            }
            $k = $node->kind;
            if ($k === ast\AST_CLASS && !($node->flags & ast\flags\CLASS_ANONYMOUS)) {
                $fq = strtolower(qualify($ns, $node->children['name']));
                $key = $classes[$fq]['key'];
                foreach ($node->children['stmts']->children as $s) {
                    $walk($s, $fq, isset($defs[$key]) ? $key : "<$path>");
                }
                return;
            }
            if ($k === ast\AST_CLASS) {  // an anonymous class: its methods' `$this` is its own
                foreach ($node->children['stmts']->children as $s) {
                    $walk($s, '', $caller);
                }
                return;
            }
            if ($k === ast\AST_METHOD) {
                if ($node->children['stmts'] === null) {
                    return;
                }
                $line = name_line($lines, $node->lineno, $node->endLineno, 'function', $node->children['name']);
                $walk($node->children['stmts'], $class, isset($defs["$path:$line"]) && $class !== '' ? "$path:$line" : $caller);
                return;
            }
            if ($k === ast\AST_FUNC_DECL) {
                $line = name_line($lines, $node->lineno, $node->endLineno, 'function', $node->children['name']);
                $walk($node->children['stmts'], null, "$path:$line");
                return;
            }
            if ($k === ast\AST_ASSIGN && $node->children['expr'] instanceof ast\Node
                && in_array($node->children['expr']->kind, [ast\AST_CLOSURE, ast\AST_ARROW_FUNC], true)
                && isset($defs["$path:{$node->lineno}"]) && $node->children['var'] instanceof ast\Node
                && $node->children['var']->kind === ast\AST_VAR) {
                $walk($node->children['expr'], $class, "$path:{$node->lineno}");
                return;
            }
            $line = $node->lineno;
            if ($k === ast\AST_CALL) {
                $e = $node->children['expr'];
                if ($e instanceof ast\Node && $e->kind === ast\AST_NAME) {
                    $name = $e->children['name'];
                    $lower = strtolower(ltrim($name, '\\'));
                    $cands = [];
                    if ($e->flags === ast\flags\NAME_FQ) {
                        $cands = [$lower];
                    } elseif ($e->flags === ast\flags\NAME_RELATIVE) {
                        $cands = [strtolower(qualify($ns, $name))];
                    } elseif (str_contains($name, '\\')) {
                        $cands = [class_name($e, $ns, $uses)];
                    } elseif (isset($uses['function'][$lower])) {
                        $cands = [strtolower($uses['function'][$lower])];
                    } else {
                        $cands = [strtolower(qualify($ns, $name)), $lower];
                    }
                    $hit = null;
                    foreach ($cands as $c) {
                        if (isset($functions[$c])) {
                            $hit = $functions[$c];
                            break;
                        }
                    }
                    if ($hit !== null) {
                        $edge($caller, $hit, $line);
                    } else {
                        $external++;
                    }
                } else {
                    $unresolve($caller, $line, 'a call of a value ($f(), a closure)');
                }
            } elseif ($k === ast\AST_STATIC_CALL || $k === ast\AST_METHOD_CALL || $k === ast\AST_NULLSAFE_METHOD_CALL) {
                $m = $node->children['method'];
                $target = null;
                if (!is_string($m)) {
                    $unresolve($caller, $line, 'a method named by a value ($obj->$name())');
                } elseif ($k === ast\AST_STATIC_CALL) {
                    $c = $node->children['class'];
                    if (!$c instanceof ast\Node || $c->kind !== ast\AST_NAME) {
                        $unresolve($caller, $line, 'a call on a class named by a value ($cls::m())');
                    } else {
                        $cn = class_name($c, $ns, $uses);
                        if ($cn === 'self' || $cn === 'static') {
                            $target = $class;
                        } elseif ($cn === 'parent') {
                            $target = $class !== null && $class !== '' ? ($classes[$class]['parent'] ?? null) : null;
                            if ($target === null) {
                                $external++;
                            }
                        } else {
                            $target = $cn;
                        }
                    }
                } else {
                    $e = $node->children['expr'];
                    if ($e instanceof ast\Node && $e->kind === ast\AST_VAR && $e->children['name'] === 'this' && $class !== null) {
                        $target = $class;
                    } else {
                        $unresolve($caller, $line, 'a method call on an object ($obj->m(): its class is the run time\'s)');
                    }
                }
                if ($target === '') {
                    $unresolve($caller, $line, 'a method of an anonymous class');
                } elseif ($target !== null && is_string($m)) {
                    [$hit, $why] = find_method($target, strtolower($m));
                    if ($hit === 'abstract') {
                        $unresolve($caller, $line, 'an abstract or interface method (dynamic dispatch)');
                    } elseif ($hit !== null) {
                        $edge($caller, $hit, $line);
                    } elseif ($why === 'outside') {
                        $external++;
                    } elseif (($classes[$target]['kind'] ?? '') === 'trait') {
                        $unresolve($caller, $line, 'a trait\'s call of a method its user class declares');
                    } else {
                        $unresolve($caller, $line, 'a method no class of the chain declares (__call, __callStatic)');
                    }
                }
            } elseif ($k === ast\AST_NEW) {
                $c = $node->children['class'];
                if ($c instanceof ast\Node && $c->kind === ast\AST_NAME) {
                    $cn = class_name($c, $ns, $uses);
                    $target = match ($cn) {
                        'self', 'static' => $class,
                        'parent' => $class ? ($classes[$class]['parent'] ?? null) : null,
                        default => $cn,
                    };
                    if ($target === null || $target === '' || !isset($classes[$target])) {
                        $external++;
                    } else {
                        [$hit, $why] = find_method($target, '__construct');
                        if ($hit !== null && $hit !== 'abstract') {
                            $edge($caller, $hit, $line);
                        } elseif (isset($defs[$classes[$target]['key']])) {
                            $edge($caller, $classes[$target]['key'], $line);
                        }
                    }
                } elseif (!($c instanceof ast\Node && $c->kind === ast\AST_CLASS)) {
                    $unresolve($caller, $line, 'a class named by a value (new $cls)');
                }
            }
            foreach ($node->children as $c) {
                $walk($c, $class, $caller);
            }
        };
        foreach ($stmts as $s) {
            $walk($s, null, "<$path>");
        }
    }
}

// What PHP did not parse: every line with code on it.
foreach ($failed as $path) {
    foreach (explode("\n", file_get_contents("$folder/$path")) as $i => $l) {
        if (preg_match('/\w/', $l)) {
            $unresolved[] = ['caller' => null, 'site' => "$path:" . ($i + 1) . ':0', 'why' => 'in a file PHP does not parse'];
        }
    }
}

fwrite(STDERR, sprintf("ref_php: %d files (%d not parsed), %d defs, %d edges, %d unresolved, %d external\n",
    count($files), count($failed), count($defs), count($edges), count($unresolved), $external));
echo json_encode([
    'tool' => 'PHP ' . PHP_VERSION . ' parser (php-ast ' . phpversion('ast') . ', AST version ' . AST_VERSION . ')',
    'defs' => (object) $defs,
    'edges' => $edges,
    'unresolved' => $unresolved,
    'skipped' => (object) [],
    'external_sites' => $external,
    'not_compiled' => $failed,
], JSON_UNESCAPED_SLASHES);
