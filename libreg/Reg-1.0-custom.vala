/* Declarations of libreg-1.vapi that vapigen cannot write from
 * Reg-1.0.gir: the functions taking a string array, with its C type
 * `const char * const *` (see Reg-1.0.metadata), so that the C valac
 * writes casts the `char **` it passes.  Each is otherwise what vapigen
 * writes for it; tests/vala/check-c.py checks that every such
 * parameter of the GIR has that type in the vapi.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

namespace Reg {
	public sealed class BackendInfo : GLib.Object {
		public GLib.Variant parse_options ([CCode (array_length = false, array_null_terminated = true, type = "const char* const*")] string[] assignments) throws GLib.Error;
	}

	public sealed class BackendList : GLib.Object {
		[CCode (has_construct_function = false)]
		public BackendList (Reg.Registry registry, [CCode (array_length = false, array_null_terminated = true, type = "const char* const*")] string[]? exclude_tags);
	}

	public sealed class Option : GLib.Object {
		[CCode (has_construct_function = false)]
		public Option.with_choices (string name, string type_string, GLib.Variant? default_value, [CCode (array_length = false, array_null_terminated = true, type = "const char* const*")] string[] choices, string? description) throws GLib.Error;
	}

	public sealed class Registry : GLib.Object {
		[CCode (array_length = false, array_null_terminated = true)]
		public string[] list_backends ([CCode (array_length = false, array_null_terminated = true, type = "const char* const*")] string[]? exclude_tags);
		public bool register_backend (string? name, Reg.Compiler compiler, [CCode (array_length = false, array_null_terminated = true, type = "const char* const*")] string[]? tags) throws GLib.Error;
		public void set_fallback_backends ([CCode (array_length = false, array_null_terminated = true, type = "const char* const*")] string[]? names);
	}

	[CCode (array_length = false, array_null_terminated = true, cheader_filename = "reg.h")]
	public static string[] close_matches (string word, [CCode (array_length = false, array_null_terminated = true, type = "const char* const*")] string[]? possibilities, uint n, double cutoff);
}
