"""A project of the library's own tests: one small family (an MLP on generated blobs), built as a generated
project builds its families (a net, a TaskModule, a DataModule, a registry, configs), so that runkit's
machinery is tested without any of the template's families."""
