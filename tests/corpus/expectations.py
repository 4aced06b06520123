"""What each corpus program that does not pass lacks, as its run reported it (strict xfails in
test_corpus.py: a fix that makes a program pass fails its test until its entry here is removed).

DOES_NOT_RUN: the program stops with an error; the reason is the run's error (the unsupported name
or module, in Dagscope's words).
NO_GRAPH: the program runs but Dagscope drew no graph for it.
WRONG_NUMBERS: it runs, but prints numbers that differ from the real library's beyond float32 rounding.
"""

_ARGV = ("SystemExit: the program called sys.exit(2) — argparse's parse_args() read the run's sys.argv, which is "
         "the zygote's command line (['.../zygote.py', '7']): 'unrecognized arguments: 7' (a pasted script's "
         "sys.argv should be just its own name)")
_KERAS = ("SecurityViolation: `import keras` (Keras 3's own package, as the keras-io guides import it): Dagscope "
          "has no keras facade, and the real keras installed beside it is refused by the sandbox (compiled "
          "bytecode from outside the standard library)")
_CALLBACKS = ("UnsupportedAttributeError: tf.keras.callbacks is not supported by Dagscope (d2l's TensorFlow helpers "
              "define TrainCallback(tf.keras.callbacks.Callback) at import)")
_NO_GRAPH = "ran, but drew no graph: its computations are forward only (no backward()), and none is drawn"

DOES_NOT_RUN: dict[str, str] = {
    # PyTorch
    "torch/ex_mnist": _ARGV,
    "torch/ex_time_sequence_prediction": _ARGV,
    "torch/ex_vae": _ARGV,
    "torch/ex_word_language_model_lstm": "UnsupportedAttributeError: torch.nn.Transformer is not supported by Dagscope "
                                         "(model.py subclasses it at import)",
    "torch/ex_word_language_model_transformer": "UnsupportedAttributeError: torch.nn.Transformer is not supported by Dagscope",
    "torch/nanogpt_train_shakespeare_char": "UnsupportedError: `import torch.nn.parallel`: Dagscope has no module "
                                           "torch.nn.parallel (train.py imports DistributedDataParallel from it)",
    "torch/tut_basics_tensorqs": "TypeError: mul() got an unexpected keyword argument 'out' (torch.mul(..., out=))",
    # TensorFlow and Keras
    "tensorflow/d2l_tf_custom_layer": "UnsupportedAttributeError: tf.random_normal_initializer is not supported by Dagscope",
    "tensorflow/d2l_tf_linear_regression_concise": _CALLBACKS,
    "tensorflow/d2l_tf_linear_regression_scratch": _CALLBACKS,
    "tensorflow/d2l_tf_mlp_concise": _CALLBACKS,
    "tensorflow/d2l_tf_parameters": "UnsupportedAttributeError: tf.keras.layers.Flatten is not supported by Dagscope",
    "tensorflow/d2l_tf_softmax_regression_concise": _CALLBACKS,
    "tensorflow/kerasio_custom_train_step": _KERAS,
    "tensorflow/kerasio_sequential_model": _KERAS,
    "tensorflow/tfdocs_guide_advanced_autodiff": "UnsupportedAttributeError: tf.custom_gradient is not supported by Dagscope",
    "tensorflow/tfdocs_guide_autodiff": "UnsupportedAttributeError: tf.image is not supported by Dagscope",
    "tensorflow/tfdocs_guide_basics": "UnsupportedAttributeError: tf.config is not supported by Dagscope",
    "tensorflow/tfdocs_guide_intro_to_graphs": "UnsupportedAttributeError: tf.autograph is not supported by Dagscope",
    "tensorflow/tfdocs_guide_random_numbers": "UnsupportedAttributeError: tf.config is not supported by Dagscope",
    "tensorflow/tfdocs_guide_tensor_slicing": "UnsupportedAttributeError: tf.slice is not supported by Dagscope",
    "tensorflow/tfdocs_guide_function": "UnsupportedAttributeError: tf.keras.layers.Conv2D is not supported by Dagscope",
    "tensorflow/tfdocs_guide_tensor": "UnsupportedError: slices with a negative or zero step are not supported by Dagscope",
    "tensorflow/tfdocs_guide_variable": "UnsupportedError: tensors of complex128 values (e.g. strings) are not supported "
                                        "by Dagscope",
    "tensorflow/tfdocs_quickstart_advanced": "ImportError: cannot import name 'Flatten' from tensorflow.keras.layers "
                                             "(`from tensorflow.keras.layers import Dense, Flatten, Conv2D`)",
    "tensorflow/tfdocs_quickstart_beginner": "UnsupportedAttributeError: tf.keras.layers.Flatten is not supported by Dagscope",
    "tensorflow/tfex_v1_helloworld": "UnsupportedError: tensors of <U18 values (e.g. strings) are not supported by "
                                     "Dagscope (tf.constant('Hello, TensorFlow!'))",
    "tensorflow/tfex_v1_logistic_regression": "TypeError: tf.reduce_sum got an unexpected keyword argument "
                                              "'reduction_indices' (TF1's name for axis)",
    "tensorflow/tfex_v2_linear_regression": "UnsupportedAttributeError: tf.optimizers is not supported by Dagscope",
    "tensorflow/tfex_v2_logistic_regression": "UnsupportedAttributeError: tf.data is not supported by Dagscope",
    "tensorflow/tfex_v2_neural_network": "UnsupportedAttributeError: tf.data is not supported by Dagscope",
}

NO_GRAPH: dict[str, str] = {
    "torch/d2l_attention_scoring": _NO_GRAPH,
    "torch/d2l_channels": _NO_GRAPH,
    "torch/d2l_model_construction": _NO_GRAPH,
    "torch/d2l_multihead_attention": _NO_GRAPH,
    "torch/d2l_padding_and_strides": _NO_GRAPH,
    "torch/d2l_parameters": _NO_GRAPH,
    "torch/d2l_pooling": _NO_GRAPH,
    "torch/d2l_self_attention_positional": _NO_GRAPH,
    "torch/tut_tensor_polynomial_tensor": _NO_GRAPH,
}

WRONG_NUMBERS: dict[str, str] = {
    "torch/tut_autograd_polynomial_custom_function": "a and c print as float32 noise around their true value 0 "
        "(PyTorch 1.98e-10 and 2.88e-10, Dagscope -1.53e-09 and -6.10e-10: sums of 2000 O(1) float32 terms in "
        "another order); the comparator allows no absolute slack for a number Python prints, so they differ",
    "torch/tut_nlp_sequence_models": "text, not a number: the LSTM output's grad_fn prints as StackBackward0 where "
        "PyTorch's CPU LSTM prints MkldnnRnnLayerBackward0 (as torch_sweep's 330_print_lstm_outputs)",
}
