#!/usr/bin/env python3
"""A small deterministic DDP training job: linear regression on synthetic data.

The data and the initial weights come from fixed seeds, so a run's losses depend only on its
hyperparameters and world size: a 1x2 and a 2x1 job print the same numbers, and a job that
resumes from its checkpoint ends with the loss of an unbroken run. Launch it with torchrun
(`sortie run dist.ddp -j 1x2 --script examples/pytorch/train.py -- --lr 0.05`); it runs on CPU
with gloo, or on the GPU of its LOCAL_RANK with NCCL when CUDA is present. Under sortie it
checkpoints in the job's own directory, $SORTIE_OUTPUT_DIR.
"""
import argparse
import os
import signal

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

SAMPLES = 512
FEATURES = 16


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lr", type=float, default=0.05, help="SGD learning rate")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=32, help="per rank")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and the model")
    # The job's own directory ($SORTIE_OUTPUT_DIR, given by sortie to every app and shared by the
    # attempts of one app or work unit): concurrent jobs never write one checkpoint, and a
    # restarted job finds its own.
    output_dir = os.environ.get("SORTIE_OUTPUT_DIR")
    parser.add_argument("--checkpoint",
                        default=os.path.join(output_dir, "ckpt.pt") if output_dir else None,
                        help="file to save after every epoch and to resume from when it exists "
                             "(default: ckpt.pt in $SORTIE_OUTPUT_DIR; none without it)")
    parser.add_argument("--crash_once", default=None,
                        help="marker file: rank 1 SIGKILLs itself in the middle of epoch 3 "
                             "unless the file exists (it creates it first); for resume tests")
    return parser.parse_args()


def synthetic_data(seed):
    generator = torch.Generator().manual_seed(seed)
    inputs = torch.randn(SAMPLES, FEATURES, generator=generator)
    true_weights = torch.randn(FEATURES, 1, generator=generator)
    targets = inputs @ true_weights + 0.1 * torch.randn(SAMPLES, 1, generator=generator)
    return TensorDataset(inputs, targets)


def main():
    args = parse_args()
    torch.set_num_threads(1)  # the same arithmetic however many jobs share the host
    use_cuda = torch.cuda.is_available()
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if use_cuda:
        torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank) if use_cuda else torch.device("cpu")
    dist.init_process_group("nccl" if use_cuda else "gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()

    dataset = synthetic_data(args.seed)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, seed=args.seed)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)
    torch.manual_seed(args.seed)
    model = DistributedDataParallel(torch.nn.Linear(FEATURES, 1).to(device),
                                    device_ids=[local_rank] if use_cuda else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    first_epoch = 0
    if args.checkpoint and os.path.exists(args.checkpoint):
        state = torch.load(args.checkpoint, map_location=device)
        model.module.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        first_epoch = state["epoch"] + 1
        if rank == 0:
            print(f"resumed from {args.checkpoint} at epoch={first_epoch}", flush=True)
    if rank == 0:
        print(f"lr={args.lr} epochs={args.epochs} batch_size={args.batch_size} "
              f"world_size={world_size} device={device.type}", flush=True)

    all_inputs, all_targets = (t.to(device) for t in dataset.tensors)
    loss = float("nan")
    for epoch in range(first_epoch, args.epochs):
        sampler.set_epoch(epoch)
        for step, (inputs, targets) in enumerate(loader):
            if (args.crash_once and rank == 1 and epoch == 3 and step == len(loader) // 2
                    and not os.path.exists(args.crash_once)):
                open(args.crash_once, "w").close()
                print(f"rank 1 kills itself at epoch={epoch} step={step}", flush=True)
                os.kill(os.getpid(), signal.SIGKILL)
            optimizer.zero_grad()
            batch_loss = torch.nn.functional.mse_loss(model(inputs.to(device)), targets.to(device))
            batch_loss.backward()
            optimizer.step()
        with torch.no_grad():
            loss = torch.nn.functional.mse_loss(model.module(all_inputs), all_targets).item()
        if rank == 0:
            print(f"epoch={epoch} loss={loss:.6f}", flush=True)
            if args.checkpoint:
                partial = args.checkpoint + ".partial"
                torch.save({"epoch": epoch, "model": model.module.state_dict(),
                            "optimizer": optimizer.state_dict()}, partial)
                os.replace(partial, args.checkpoint)
        dist.barrier()
    if rank == 0:
        print(f"final_loss={loss:.6f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
