// What a C# assembly's IL says about its calls, for ref_csharp.py: each method of the
// assembly with its source lines, and each call instruction with its site and the callee the
// compiler chose. Read with Mono.Cecil from an assembly `mcs -debug` wrote (its .mdb symbols
// give the lines), Debian's Mono.Cecil 0.9.5 and its Mdb reader.
//
//     mono RefCSharp.exe ASSEMBLY.dll > facts.tsv
//
// Lines, tab-separated:
//   T  type-id  full-name  interface|struct|delegate|class  base-type-id|-  [interface-type-id ...]
//      (base types and interfaces of this assembly only)
//   M  method-id  type-id  name  parameter-count  flags  file  first-line  last-line
//      (no lines: "-" 0 0); flags: comma-separated of ctor, static, abstract, virtual, final,
//      newslot, generated, accessor (a property's or event's), operator, conditional (a
//      [Conditional] method: the compiler drops its calls unless the symbol is defined); "-" for none
//   C  method-id  opcode  callee  file  line  column
//      callee: a method-id of this assembly, or "ext:" and the callee's full name
// A method-id is its metadata token; a type-id too. A site is the sequence point in force at
// the instruction (the last one at or before its offset, hidden ones skipped).
using System;
using System.Collections.Generic;
using System.Linq;
using Mono.Cecil;
using Mono.Cecil.Cil;
using Mono.Cecil.Mdb;

static class RefCSharp
{
    /// The line of a hidden sequence point (code no source line stands for).
    const int Hidden = 0xfeefee;

    static string Id(IMetadataTokenProvider p) { return p.MetadataToken.ToUInt32().ToString("x8"); }

    static bool Generated(ICustomAttributeProvider p)
    {
        return p.CustomAttributes.Any(a => a.AttributeType.Name == "CompilerGeneratedAttribute");
    }

    static IEnumerable<TypeDefinition> All(IEnumerable<TypeDefinition> types)
    {
        foreach (var t in types)
        {
            yield return t;
            foreach (var n in All(t.NestedTypes)) yield return n;
        }
    }

    static int Main(string[] args)
    {
        var rp = new ReaderParameters { ReadSymbols = true, SymbolReaderProvider = new MdbReaderProvider() };
        var module = ModuleDefinition.ReadModule(args[0], rp);
        var output = Console.Out;
        foreach (var t in All(module.Types))
        {
            var bt = t.BaseType == null ? null : t.BaseType.Resolve();
            var line = new List<string> {
                "T", Id(t), t.FullName, t.IsInterface ? "interface" : t.IsValueType ? "struct"
                    : t.BaseType != null && t.BaseType.FullName == "System.MulticastDelegate" ? "delegate" : "class",
                bt != null && bt.Module == module ? Id(bt) : "-" };
            foreach (var i in t.Interfaces)
            {
                var it = i.Resolve();
                if (it != null && it.Module == module) line.Add(Id(it));
            }
            output.WriteLine(string.Join("\t", line));
            foreach (var m in t.Methods)
            {
                var flags = new List<string>();
                if (m.IsConstructor) flags.Add("ctor");
                if (m.IsStatic) flags.Add("static");
                if (m.IsAbstract) flags.Add("abstract");
                if (m.IsVirtual) flags.Add("virtual");
                if (m.IsFinal) flags.Add("final");
                if (m.IsNewSlot) flags.Add("newslot");
                if (Generated(m) || Generated(t) || m.Name.StartsWith("<")) flags.Add("generated");
                if (m.IsGetter || m.IsSetter || m.IsAddOn || m.IsRemoveOn) flags.Add("accessor");
                if (m.IsSpecialName && m.Name.StartsWith("op_")) flags.Add("operator");
                if (m.CustomAttributes.Any(a => a.AttributeType.Name == "ConditionalAttribute")) flags.Add("conditional");
                var points = m.HasBody
                    ? m.Body.Instructions.Select(i => i.SequencePoint)
                        .Where(p => p != null && p.StartLine != Hidden).ToList()
                    : new List<SequencePoint>();
                string file = points.Count > 0 ? points[0].Document.Url : "-";
                int first = points.Count > 0 ? points.Min(p => p.StartLine) : 0;
                int last = points.Count > 0 ? points.Max(p => p.EndLine) : 0;
                output.WriteLine(string.Join("\t", new[] {
                    "M", Id(m), Id(t), m.Name, m.Parameters.Count.ToString(),
                    flags.Count > 0 ? string.Join(",", flags) : "-", file,
                    first.ToString(), last.ToString() }));
                if (!m.HasBody) continue;
                SequencePoint at = null;
                foreach (var ins in m.Body.Instructions)
                {
                    if (ins.SequencePoint != null && ins.SequencePoint.StartLine != Hidden) at = ins.SequencePoint;
                    var op = ins.OpCode.Code;
                    if (op != Code.Call && op != Code.Callvirt && op != Code.Newobj && op != Code.Ldftn
                        && op != Code.Ldvirtftn) continue;
                    var mr = ins.Operand as MethodReference;
                    if (mr == null || at == null) continue;
                    MethodDefinition md = null;
                    try { md = mr.Resolve(); } catch (Exception) { }
                    string callee = md != null && md.Module == module ? Id(md) : "ext:" + mr.FullName;
                    output.WriteLine(string.Join("\t", new[] {
                        "C", Id(m), ins.OpCode.Name, callee, at.Document.Url,
                        at.StartLine.ToString(), at.StartColumn.ToString() }));
                }
            }
        }
        return 0;
    }
}
