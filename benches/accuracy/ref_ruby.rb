# Reference call graph of a Ruby code base, by Ruby's own parser and Ruby's method lookup
# on what the code declares.
#
#     ruby ref_ruby.rb FOLDER > ref.json
#
# Every `.rb` file of FOLDER is parsed by the running Ruby (`RubyVM::AbstractSyntaxTree`:
# the tree Ruby compiles). Classes and modules are named as Ruby names them (the lexical
# nesting, `class A::B`); a constant resolves lexically (`Module.nesting`: the innermost
# namespace outwards, then the top level). A class's ancestors are itself, the modules it
# includes (the last first) and its superclass's ancestors; a module's, itself and the
# modules it includes. Calls, by their receiver (the static target, as javac's reference
# gives for Java):
#
# - `m(…)`, `m`, `self.m(…)` in an instance method: the instance method `m` of the class's
#   ancestors; in a singleton method (`def self.m`, `class << self`) or a class body: the
#   singleton method `m` of the class or a superclass (or of a module it extends); at the top
#   level: a top-level `def m`;
# - `C.m(…)`, `C::m(…)` (C a constant): C's singleton method; `C.new(…)` C's `initialize`
#   (declared or inherited), else the class;
# - `super`: the method of the same name in the ancestors after the class.
#
# A name the lookup does not find is external (Kernel, Object, a class from outside: Ruby's
# own classes are every class's ancestors), counted. Left unresolved, with a reason: a method
# call on any other receiver (`obj.m`: its class is the run time's), a module's instance
# method calling a method the module does not declare (the including class's), and a name an
# owner declares more than once (which definition is in force depends on load order).
# Defs: `def m` and `def self.m` (the line of `def`), classes and modules; a call in a block
# belongs to the def around it, one in a class body to the class, one outside any to the
# file's top level (`<path>`). Output: the JSON of ref_python.py.

require "json"

folder = ARGV[0] or abort("usage: ruby ref_ruby.rb FOLDER")
folder = folder.chomp("/")
files = Dir.glob("**/*.rb", base: folder).sort

Owner = Struct.new(:name, :kind, :key, :super_node, :nesting, :includes, :extends, :imethods, :smethods, :module_function)

$owners = {}   # full name -> Owner
$defs = {}
$failed = []
$top_methods = Hash.new { |h, k| h[k] = [] }
parsed = {}

def cpath_name(node, nesting)
  case node.type
  when :COLON2
    scope, name = node.children
    scope.nil? ? [nesting.first, name.to_s].compact.join("::") : "#{const_text(scope)}::#{name}"
  when :COLON3 then node.children[0].to_s
  when :CONST then [nesting.first, node.children[0].to_s].compact.join("::")
  end
end

# The constant as written (`A::B`), or nil for anything else.
def const_text(node)
  return nil unless node.is_a?(RubyVM::AbstractSyntaxTree::Node)
  case node.type
  when :CONST then node.children[0].to_s
  when :COLON2 then (s = const_text(node.children[0])) && "#{s}::#{node.children[1]}"
  when :COLON3 then "::#{node.children[0]}"
  end
end

# A constant written in `nesting` (innermost first) as Ruby resolves it lexically: the full
# name of a class or module of the code base, or nil.
def resolve_const(text, nesting)
  return nil if text.nil?
  return ($owners.key?(text[2..]) ? text[2..] : nil) if text.start_with?("::")
  nesting.each do |n|
    full = "#{n}::#{text}"
    return full if $owners.key?(full)
  end
  $owners.key?(text) ? text : nil
end

def node?(n) = n.is_a?(RubyVM::AbstractSyntaxTree::Node)

def each_child(node, &blk)
  node.children.each { |c| blk.call(c) if node?(c) }
end

def owner_for(name, kind, key, nesting)
  $owners[name] ||= Owner.new(name, kind, key, nil, nesting, [], [], Hash.new { |h, k| h[k] = [] },
                              Hash.new { |h, k| h[k] = [] }, false)
end

# Pass 1: classes, modules, methods.
def collect(node, path, nesting, owner, singleton)
  return unless node?(node)
  case node.type
  when :CLASS, :MODULE
    name = cpath_name(node.children[0], nesting)
    line = node.first_lineno
    key = "#{path}:#{line}"
    o = owner_for(name, node.type == :CLASS ? "class" : "module", key, nesting)
    o.super_node ||= node.children[1] if node.type == :CLASS && node?(node.children[1])
    o.nesting = nesting if o.key == key
    $defs[key] ||= { "path" => path, "name" => name.split("::").last, "line" => line,
                     "end" => node.last_lineno, "kind" => node.type == :CLASS ? "class" : "module", "bases" => [] }
    collect(node.children.last, path, [name] + nesting, o, false)
    return
  when :SCLASS
    collect(node.children.last, path, nesting, owner, true) if node.children[0].type == :SELF
    return
  when :DEFN, :DEFS
    mid = node.children[node.type == :DEFN ? 0 : 1].to_s
    line = node.first_lineno
    key = "#{path}:#{line}"
    d = { "path" => path, "name" => mid, "line" => line, "end" => node.last_lineno, "kind" => "function" }
    if owner.nil?
      $top_methods[mid] << key
    elsif node.type == :DEFS || singleton
      owner.smethods[mid] << key if node.type == :DEFN || node.children[0].type == :SELF
    else
      owner.imethods[mid] << key
      owner.smethods[mid] << key if owner.module_function
      if mid == "initialize" && owner.kind == "class"
        d["ctor"] = true
        d["class"] = owner.key
      end
    end
    $defs[key] = d
    return  # a def's body defines nothing of its owner's
  when :FCALL, :VCALL
    if owner && !singleton
      mid = node.children[0]
      args = node.type == :FCALL && node?(node.children[1]) ? node.children[1].children.select { |c| node?(c) } : []
      case mid
      when :include, :prepend then owner.includes.concat(args.map { |a| [const_text(a), nesting] })
      when :extend
        args.each do |a|
          if a.type == :SELF then owner.module_function = true
          else owner.extends << [const_text(a), nesting]
          end
        end
      when :module_function then owner.module_function = true if args.empty?
      end
    end
  end
  each_child(node) { |c| collect(c, path, nesting, owner, singleton) }
end

files.each do |path|
  src = File.read(File.join(folder, path))
  begin
    ast = RubyVM::AbstractSyntaxTree.parse(src)
  rescue SyntaxError
    $failed << path
    next
  end
  parsed[path] = ast
  collect(ast, path, [], nil, false)
end

# Each owner's superclass and modules, resolved now that every owner is known.
$owners.each_value do |o|
  o.includes = o.includes.map { |t, n| resolve_const(t, n) }
  o.extends = o.extends.map { |t, n| resolve_const(t, n) }
  sup = o.super_node && const_text(o.super_node)
  o.super_node = sup && (resolve_const(sup, o.nesting) || :outside)
  if o.super_node.is_a?(String) && $defs[o.key] && $defs[$owners[o.super_node].key]
    $defs[o.key]["bases"] << $owners[o.super_node].key
  end
end

# The instance method `mid` of owner `name` and its ancestors: [keys, outside reached].
def find_imethod(name, mid, skip_self: false, seen: {})
  return [nil, true] if name.nil?
  return [nil, false] if seen[name]
  seen[name] = true
  o = $owners[name]
  return [nil, true] unless o
  return [o.imethods[mid], false] if !skip_self && o.imethods.key?(mid)
  outside = false
  o.includes.reverse_each do |m|
    k, out = find_imethod(m, mid, seen: seen)
    return [k, false] if k
    outside ||= out
  end
  if o.kind == "class"
    return [nil, true] if o.super_node.nil? || o.super_node == :outside
    k, out = find_imethod(o.super_node, mid, seen: seen)
    return [k, false] if k
    outside ||= out
  end
  [nil, outside || o.kind == "class"]
end

def find_smethod(name, mid, seen: {})
  return nil if name.nil? || seen[name]
  seen[name] = true
  o = $owners[name]
  return nil unless o
  return o.smethods[mid] if o.smethods.key?(mid)
  o.extends.each do |m|
    next unless m
    k, = find_imethod(m, mid)
    return k if k
  end
  o.kind == "class" && o.super_node.is_a?(String) ? find_smethod(o.super_node, mid, seen: seen) : nil
end

$edges = []
$seen = {}
$unresolved = []
$external = 0

def edge(caller, keys, site)
  if keys.size > 1
    $unresolved << { "caller" => caller, "site" => site, "why" => "a method its owner defines more than once (load order)" }
    return
  end
  k = "#{caller} #{keys[0]} #{site}"
  return if $seen[k]
  $seen[k] = true
  $edges << { "caller" => caller, "callee" => keys[0], "site" => site, "how" => "call" }
end

def unresolve(caller, site, why)
  $unresolved << { "caller" => caller, "site" => site, "why" => why }
end

# A call of `mid` on the class or module `owner` itself: `new` runs a class's `initialize`
# (declared or inherited; none: the class), anything else is a singleton method.
def class_call(owner, mid, caller, site)
  if mid == "new" && $owners[owner].kind == "class"
    keys, = find_imethod(owner, "initialize")
    key = $owners[owner].key
    keys ? edge(caller, keys, site) : ($defs[key] && edge(caller, [key], site))
  else
    keys = find_smethod(owner, mid)
    keys ? edge(caller, keys, site) : ($external += 1)
  end
end

# `ctx`: [owner name or nil, self is the owner itself (singleton), caller key, the method's
# name, nesting, in a `class << self` body (its `def`s are singleton methods)]
def calls(node, path, ctx)
  return unless node?(node)
  owner, singleton, caller, meth, nesting, sclass = ctx
  site = "#{path}:#{node.first_lineno}:#{node.first_column}"
  case node.type
  when :CLASS, :MODULE
    name = cpath_name(node.children[0], nesting)
    key = $owners[name] && "#{path}:#{node.first_lineno}"
    calls(node.children[1], path, ctx) if node.type == :CLASS  # the superclass expression
    calls(node.children.last, path, [name, true, $defs[key] ? key : caller, nil, [name] + nesting, false])
    return
  when :SCLASS
    calls(node.children.last, path, [owner, true, caller, nil, nesting, true])
    return
  when :DEFN, :DEFS
    mid = node.children[node.type == :DEFN ? 0 : 1].to_s
    key = "#{path}:#{node.first_lineno}"
    single = node.type == :DEFS || sclass
    calls(node.children.last, path, [owner, single, $defs.key?(key) ? key : caller, mid, nesting, false])
    return
  when :FCALL, :VCALL, :CALL, :QCALL
    recv = %i[CALL QCALL].include?(node.type) ? node.children[0] : nil
    mid = node.children[recv ? 1 : 0].to_s
    if recv.nil? || recv.type == :SELF
      if owner.nil?
        keys = $top_methods[mid]
        keys.empty? ? ($external += 1) : edge(caller, keys, site)
      elsif singleton
        class_call(owner, mid, caller, site)
      else
        keys, outside = find_imethod(owner, mid)
        if keys
          edge(caller, keys, site)
        elsif $owners[owner]&.kind == "module" && !outside
          unresolve(caller, site, "a module's call of a method the class including it gives")
        elsif !$top_methods[mid].empty?
          edge(caller, $top_methods[mid], site)  # a top-level def is a private method of Object
        else
          $external += 1
        end
      end
    elsif (target = resolve_const(const_text(recv), nesting))
      class_call(target, mid, caller, site)
    elsif const_text(recv)
      $external += 1  # a constant from outside the code base
    else
      unresolve(caller, site, "a method call on an object (obj.m: its class is the run time's)")
    end
  when :SUPER, :ZSUPER
    if owner && meth && !singleton
      keys, = find_imethod(owner, meth, skip_self: true)
      keys ? edge(caller, keys, site) : ($external += 1)
    end
  end
  each_child(node) { |c| calls(c, path, ctx) }
end

parsed.each { |path, ast| calls(ast, path, [nil, false, "<#{path}>", nil, [], false]) }

$failed.each do |path|
  File.readlines(File.join(folder, path)).each_with_index do |l, i|
    $unresolved << { "caller" => nil, "site" => "#{path}:#{i + 1}:0", "why" => "in a file Ruby does not parse" } if l =~ /\w/
  end
end

warn format("ref_ruby: %d files (%d not parsed), %d defs, %d edges, %d unresolved, %d external",
            files.size, $failed.size, $defs.size, $edges.size, $unresolved.size, $external)
puts JSON.generate({ "tool" => "Ruby #{RUBY_VERSION} parser (RubyVM::AbstractSyntaxTree), Ruby's method lookup",
                     "defs" => $defs, "edges" => $edges, "unresolved" => $unresolved, "skipped" => {},
                     "external_sites" => $external, "not_compiled" => $failed })
