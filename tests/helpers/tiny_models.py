"""Tiny random models for every task type, built offline and saved in the Hugging Face cache
layout, so tests load them through exactly the code path a user's real models take.

Sizes are the smallest that the libraries accept; weights are random, so tests check the kind
and shape of outputs, never their meaning. Build them once per test session (a few seconds each).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Callable

REV = "0123456789abcdef0123456789abcdef01234567"

WORDS = (["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + list("abcdefghijklmnopqrstuvwxyz0123456789.,!?'")
         + ["##" + c for c in "abcdefghijklmnopqrstuvwxyz"]
         + "hello world a photo of cat dog the is what color red blue who where paris london invoice total".split())
BERT_VOCAB = {w: i for i, w in enumerate(dict.fromkeys(WORDS))}
LABELS2 = {0: "NEG", 1: "POS"}


def put_in_cache(cache: Path, repo_id: str, src: Path, revision: str = REV) -> Path:
    """Copy a saved model folder into ``cache`` as the Hub would lay it out."""
    base = Path(cache) / ("models--" + repo_id.replace("/", "--"))
    snap = base / "snapshots" / revision
    if snap.exists():
        shutil.rmtree(snap)
    shutil.copytree(src, snap)
    (base / "refs").mkdir(parents=True, exist_ok=True)
    (base / "refs" / "main").write_text(revision)
    return snap


def _small(**kw):
    base = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=37)
    base.update(kw)
    return base


def bert_tokenizer():
    from transformers import BertTokenizer

    return BertTokenizer(vocab=BERT_VOCAB)


def _bert(cls_name: str, d: Path, **cfg):
    import transformers
    from transformers import BertConfig

    model = getattr(transformers, cls_name)(BertConfig(vocab_size=len(BERT_VOCAB), **_small(**cfg)))
    model.save_pretrained(d)
    bert_tokenizer().save_pretrained(d)


def text_classifier(d: Path):
    _bert("BertForSequenceClassification", d, num_labels=2, id2label=LABELS2, label2id={v: k for k, v in LABELS2.items()})


def token_classifier(d: Path):
    labels = {0: "O", 1: "B-PER", 2: "I-PER", 3: "B-LOC", 4: "I-LOC"}
    _bert("BertForTokenClassification", d, num_labels=5, id2label=labels, label2id={v: k for k, v in labels.items()})


def extractive_qa(d: Path):
    _bert("BertForQuestionAnswering", d)


def sentence_encoder(d: Path):
    _bert("BertModel", d)
    (d / "modules.json").write_text(json.dumps([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}]))


def _bpe_tokenizer(extra_specials: list[str] | None = None):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    corpus = ["hello world this is a test of the voice assistant",
              "the quick brown fox jumps over the lazy dog", "summarize translate answer question"] * 20
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    specials = ["<pad>", "<s>", "</s>", "<unk>"] + (extra_specials or [])
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=300, special_tokens=specials,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                        show_progress=False))
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", bos_token="<s>", eos_token="</s>", unk_token="<unk>")


def causal_lm(d: Path):
    from transformers import GPT2Config, GPT2LMHeadModel

    tok = _bpe_tokenizer()
    tok.chat_template = "{% for m in messages %}<s>{{ m['role'] }}: {{ m['content'] }}</s>{% endfor %}{% if add_generation_prompt %}<s>assistant:{% endif %}"
    cfg = GPT2Config(vocab_size=len(tok), n_positions=256, n_embd=32, n_layer=2, n_head=2,
                     bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    m = GPT2LMHeadModel(cfg)
    m.generation_config.max_new_tokens = 8
    m.save_pretrained(d)
    tok.save_pretrained(d)


def seq2seq(d: Path):
    from transformers import BartConfig, BartForConditionalGeneration

    tok = _bpe_tokenizer()
    cfg = BartConfig(vocab_size=len(tok), d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                     decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=256,
                     pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                     decoder_start_token_id=tok.eos_token_id, forced_eos_token_id=tok.eos_token_id)
    m = BartForConditionalGeneration(cfg)
    m.generation_config.max_new_tokens = 8
    m.save_pretrained(d)
    tok.save_pretrained(d)


def image_classifier(d: Path):
    from transformers import ViTConfig, ViTForImageClassification, ViTImageProcessor

    labels = {0: "cat", 1: "dog", 2: "car"}
    ViTForImageClassification(ViTConfig(image_size=32, patch_size=8, num_labels=3, id2label=labels,
                                        label2id={v: k for k, v in labels.items()}, **_small())).save_pretrained(d)
    ViTImageProcessor(size={"height": 32, "width": 32}).save_pretrained(d)


def object_detector(d: Path):
    from transformers import DetrConfig, DetrForObjectDetection, DetrImageProcessor, ResNetConfig

    cfg = DetrConfig(use_timm_backbone=False, use_pretrained_backbone=False,
                     backbone_config=ResNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], out_features=["stage2"]),
                     d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
                     encoder_ffn_dim=32, decoder_ffn_dim=32, num_queries=5, id2label={0: "cat", 1: "dog"},
                     label2id={"cat": 0, "dog": 1})
    DetrForObjectDetection(cfg).save_pretrained(d)
    DetrImageProcessor(size={"shortest_edge": 64, "longest_edge": 64}).save_pretrained(d)


def segmenter(d: Path):
    from transformers import SegformerConfig, SegformerForSemanticSegmentation, SegformerImageProcessor

    labels = {0: "wall", 1: "sky", 2: "person"}
    cfg = SegformerConfig(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32], patch_sizes=[7, 3],
                          strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2], decoder_hidden_size=32,
                          num_labels=3, id2label=labels, label2id={v: k for k, v in labels.items()})
    SegformerForSemanticSegmentation(cfg).save_pretrained(d)
    SegformerImageProcessor(size={"height": 32, "width": 32}).save_pretrained(d)


def depth_estimator(d: Path):
    from transformers import DPTConfig, DPTForDepthEstimation, DPTImageProcessor

    cfg = DPTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=4, num_attention_heads=2,
                    intermediate_size=37, backbone_out_indices=[0, 1, 2, 3], neck_hidden_sizes=[8, 16, 32, 32],
                    fusion_hidden_size=16, head_in_index=-1, is_hybrid=False)
    DPTForDepthEstimation(cfg).save_pretrained(d)
    DPTImageProcessor(size={"height": 32, "width": 32}, keep_aspect_ratio=False).save_pretrained(d)


def captioner(d: Path):
    from transformers import BlipConfig, BlipForConditionalGeneration, BlipImageProcessor, BlipProcessor, BertTokenizer

    tok = BertTokenizer(vocab=BERT_VOCAB, bos_token="[CLS]")
    cfg = BlipConfig(text_config=dict(vocab_size=len(BERT_VOCAB), encoder_hidden_size=32, bos_token_id=BERT_VOCAB["[CLS]"],
                                      eos_token_id=BERT_VOCAB["[SEP]"], sep_token_id=BERT_VOCAB["[SEP]"], pad_token_id=0, **_small()),
                     vision_config=dict(image_size=32, patch_size=8, **_small()), projection_dim=32)
    m = BlipForConditionalGeneration(cfg)
    m.generation_config.max_new_tokens = 8
    m.save_pretrained(d)
    BlipProcessor(image_processor=BlipImageProcessor(size={"height": 32, "width": 32}), tokenizer=tok).save_pretrained(d)


def vqa_classifier(d: Path):
    from transformers import ViltConfig, ViltForQuestionAnswering, ViltImageProcessor, ViltProcessor

    answers = {0: "yes", 1: "no", 2: "red", 3: "two"}
    cfg = ViltConfig(vocab_size=len(BERT_VOCAB), image_size=32, patch_size=8, max_image_length=-1, num_images=1,
                     num_labels=4, id2label=answers, label2id={v: k for k, v in answers.items()}, **_small())
    ViltForQuestionAnswering(cfg).save_pretrained(d)
    ViltProcessor(image_processor=ViltImageProcessor(size={"shortest_edge": 32}, size_divisor=8),
                  tokenizer=bert_tokenizer()).save_pretrained(d)


def document_qa(d: Path):
    from transformers import LayoutLMConfig, LayoutLMForQuestionAnswering

    LayoutLMForQuestionAnswering(LayoutLMConfig(vocab_size=len(BERT_VOCAB), **_small())).save_pretrained(d)
    bert_tokenizer().save_pretrained(d)


def pose_estimator(d: Path):
    from transformers import VitPoseBackboneConfig, VitPoseConfig, VitPoseForPoseEstimation, VitPoseImageProcessor

    cfg = VitPoseConfig(backbone_config=VitPoseBackboneConfig(image_size=[64, 48], patch_size=[16, 16], hidden_size=32,
                                                              num_hidden_layers=2, num_attention_heads=2, mlp_ratio=2,
                                                              out_indices=[2]),
                        use_simple_decoder=True, num_labels=17)
    VitPoseForPoseEstimation(cfg).save_pretrained(d)
    VitPoseImageProcessor(size={"height": 64, "width": 48}).save_pretrained(d)


def _wav2vec2_processor(d: Path):
    from transformers import Wav2Vec2CTCTokenizer, Wav2Vec2FeatureExtractor, Wav2Vec2Processor

    d.mkdir(parents=True, exist_ok=True)
    chars = ["<pad>", "<s>", "</s>", "<unk>", "|"] + list("abcdefghijklmnopqrstuvwxyz'")
    with tempfile.TemporaryDirectory() as tmp:
        vocab = Path(tmp) / "vocab.json"
        vocab.write_text(json.dumps({c: i for i, c in enumerate(chars)}))
        tok = Wav2Vec2CTCTokenizer(str(vocab))
    fe = Wav2Vec2FeatureExtractor(sampling_rate=16000, return_attention_mask=False)
    return Wav2Vec2Processor(feature_extractor=fe, tokenizer=tok), fe, len(chars)


def _wav2vec2_cfg(**kw):
    from transformers import Wav2Vec2Config

    return Wav2Vec2Config(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=20,
                          conv_dim=(16,) * 7, num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2, pad_token_id=0, **kw)


def speech_recognizer(d: Path):
    from transformers import Wav2Vec2ForCTC

    proc, fe, n = _wav2vec2_processor(d)
    Wav2Vec2ForCTC(_wav2vec2_cfg(vocab_size=n)).save_pretrained(d)
    proc.save_pretrained(d)
    fe.save_pretrained(d)


def audio_classifier(d: Path):
    from transformers import Wav2Vec2FeatureExtractor, Wav2Vec2ForSequenceClassification

    labels = {0: "speech", 1: "music", 2: "silence"}
    Wav2Vec2ForSequenceClassification(_wav2vec2_cfg(num_labels=3, id2label=labels, label2id={v: k for k, v in labels.items()},
                                                    classifier_proj_size=8)).save_pretrained(d)
    Wav2Vec2FeatureExtractor(sampling_rate=16000, return_attention_mask=False).save_pretrained(d)


def speech_synthesizer(d: Path):
    from transformers import VitsConfig, VitsModel, VitsTokenizer

    d.mkdir(parents=True, exist_ok=True)
    chars = ["<pad>", "<unk>", " "] + list("abcdefghijklmnopqrstuvwxyz,.!?'")
    (d / "vocab.json").write_text(json.dumps({c: i for i, c in enumerate(chars)}))
    tok = VitsTokenizer(vocab_file=str(d / "vocab.json"), phonemize=False, add_blank=True)
    cfg = VitsConfig(vocab_size=len(chars), hidden_size=16, num_hidden_layers=2, num_attention_heads=2, ffn_dim=64, flow_size=16,
                     spectrogram_bins=8, duration_predictor_num_flows=2, duration_predictor_filter_channels=16,
                     prior_encoder_num_flows=2, upsample_initial_channel=16, upsample_rates=[8, 2], upsample_kernel_sizes=[16, 4],
                     resblock_kernel_sizes=[3, 7], resblock_dilation_sizes=[[1, 3, 5], [1, 3, 5]], sampling_rate=16000)
    VitsModel(cfg).save_pretrained(d)
    tok.save_pretrained(d)


#: repo id -> builder, for the transformers task types (diffusers ones are in tiny_diffusers below)
TRANSFORMERS_MODELS: dict[str, Callable[[Path], None]] = {
    "tiny/bert-sentiment": text_classifier,
    "tiny/bert-ner": token_classifier,
    "tiny/bert-squad": extractive_qa,
    "tiny/minilm-embed": sentence_encoder,
    "tiny/gpt2-chat": causal_lm,
    "tiny/bart-seq2seq": seq2seq,
    "tiny/vit-classify": image_classifier,
    "tiny/detr-detect": object_detector,
    "tiny/segformer-ade": segmenter,
    "tiny/dpt-depth": depth_estimator,
    "tiny/blip-caption": captioner,
    "tiny/vilt-vqa": vqa_classifier,
    "tiny/layoutlm-docqa": document_qa,
    "tiny/vitpose": pose_estimator,
    "tiny/wav2vec2-asr": speech_recognizer,
    "tiny/wav2vec2-audio-cls": audio_classifier,
    "tiny/vits-tts": speech_synthesizer,
}


def build(cache: Path, builders: dict[str, Callable[[Path], None]], work: Path | None = None) -> dict[str, Path]:
    """Build each model in a scratch folder and place it in ``cache``; returns repo id -> snapshot."""
    import torch

    torch.manual_seed(0)
    work = Path(work or tempfile.mkdtemp(prefix="tiny-build-"))
    out = {}
    for repo_id, fn in builders.items():
        src = work / repo_id.replace("/", "--")
        src.mkdir(parents=True, exist_ok=True)
        fn(src)
        out[repo_id] = put_in_cache(cache, repo_id, src)
    return out


# --- diffusers ---------------------------------------------------------------------------
def clip_tokenizer():
    """A CLIP BPE tokenizer from a hand-written byte vocabulary (no merges, no download)."""
    from transformers import CLIPTokenizer

    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    chars = [chr(c) for c in cs]
    vocab = {c: i for i, c in enumerate(chars)}
    vocab.update({c + "</w>": 256 + i for i, c in enumerate(chars)})
    vocab["<|startoftext|>"] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    return CLIPTokenizer(vocab=vocab, merges=[], model_max_length=77)


def _sd_parts(in_channels: int = 4):
    from diffusers import AutoencoderKL, DDIMScheduler, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel

    tok = clip_tokenizer()
    v = tok.get_vocab()
    te = CLIPTextModel(CLIPTextConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=37, num_attention_heads=4,
                                      num_hidden_layers=2, max_position_embeddings=77, bos_token_id=v["<|startoftext|>"],
                                      eos_token_id=v["<|endoftext|>"], pad_token_id=v["<|endoftext|>"]))
    unet = UNet2DConditionModel(block_out_channels=(32, 64), layers_per_block=1, sample_size=16, in_channels=in_channels,
                                out_channels=4, down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
                                up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"), cross_attention_dim=32, attention_head_dim=8)
    vae = AutoencoderKL(block_out_channels=[32, 64], in_channels=3, out_channels=3, latent_channels=4,
                        down_block_types=["DownEncoderBlock2D"] * 2, up_block_types=["UpDecoderBlock2D"] * 2)
    return dict(vae=vae, text_encoder=te, tokenizer=tok, unet=unet, scheduler=DDIMScheduler(clip_sample=False, steps_offset=1))


def stable_diffusion(d: Path):
    from diffusers import StableDiffusionPipeline

    StableDiffusionPipeline(**_sd_parts(), safety_checker=None, feature_extractor=None,
                            requires_safety_checker=False).save_pretrained(d)


def instruct_pix2pix(d: Path):
    from diffusers import StableDiffusionInstructPix2PixPipeline

    StableDiffusionInstructPix2PixPipeline(**_sd_parts(in_channels=8), safety_checker=None, feature_extractor=None,
                                           requires_safety_checker=False).save_pretrained(d)


def text_to_video(d: Path):
    from diffusers import TextToVideoSDPipeline, UNet3DConditionModel

    parts = _sd_parts()
    parts["unet"] = UNet3DConditionModel(block_out_channels=(32, 64), layers_per_block=1, sample_size=16, in_channels=4,
                                         out_channels=4, down_block_types=("CrossAttnDownBlock3D", "DownBlock3D"),
                                         up_block_types=("UpBlock3D", "CrossAttnUpBlock3D"), cross_attention_dim=32,
                                         attention_head_dim=8, norm_num_groups=32)
    TextToVideoSDPipeline(**parts).save_pretrained(d)


def controlnet(d: Path):
    from diffusers import ControlNetModel

    ControlNetModel(block_out_channels=(32, 64), layers_per_block=1, in_channels=4, cross_attention_dim=32,
                    down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"), attention_head_dim=8,
                    conditioning_embedding_out_channels=(16, 32)).save_pretrained(d)


DIFFUSERS_MODELS: dict[str, Callable[[Path], None]] = {
    "tiny/sd": stable_diffusion,
    "tiny/instruct-pix2pix": instruct_pix2pix,
    "tiny/text-to-video": text_to_video,
    **{f"tiny/sd-controlnet-{kind}": controlnet for kind in ("canny", "hed", "mlsd", "openpose", "normal", "seg", "depth")},
}


_built: dict[str, Path] = {}


def tiny_model_cache(root: Path) -> Path:
    """A model cache holding every tiny model, built on first use and reused by every test module
    of the session (building them all takes ~10 s on 2 cores)."""
    if "cache" not in _built:
        cache = Path(root) / "model_cache"
        cache.mkdir(parents=True, exist_ok=True)
        build(cache, {**TRANSFORMERS_MODELS, **DIFFUSERS_MODELS}, work=Path(root) / "build")
        _built["cache"] = cache
    return _built["cache"]


def write_png_header(path: Path, width: int, height: int) -> Path:
    """A PNG whose header claims ``width`` x ``height`` pixels (no pixel data): how a huge scan or a
    decompression bomb looks to the code that opens it, without using the memory."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    Path(path).write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b""))
    return Path(path)
