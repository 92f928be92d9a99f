// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {XchainOrder} from "./XchainOrder.sol";
import {XchainCallProxy} from "./XchainCallProxy.sol";

/// @title The router: a chain's `deposit_target`, where every step of an order happens.
/// @notice On the source chain it takes the deposit for a quoted order once, keyed by its quote
/// hash, and lets it leave once: back to the order's refund address (`refund`) or to the treasury
/// once the order was delivered (`claim`); on the destination chain a filler delivers the order
/// through `fill`, once, unless the refunder cancelled it there first. One contract per chain, so
/// one watcher reads all of an order's steps on one address. Its configuration (refunder, settler,
/// treasury, retention) is immutable (in the code), so its runtime code works wherever it is placed
/// (the local chains copy it to a fixed address with `anvil_setCode`).
/// @dev Trust model: users trust the operator to fill or refund each order; the router guarantees
/// that a deposit leaves it at most once, and that a cancelled order is never filled.
contract XchainRouter {
    using SafeERC20 for IERC20;

    /// @notice The whole order, so a filler learns everything it must deliver from the source
    /// chain alone (the role of ERC-7683's Open event). Emitted just before `Deposited`.
    event OrderOpened(bytes32 indexed quoteHash, XchainOrder.Order order);
    event Deposited(bytes32 indexed quoteHash, address indexed depositor, address token, uint256 amount);
    event Filled(
        bytes32 indexed quoteHash, address indexed filler, address recipient, address token, uint256 amount, uint256 gasDrop
    );
    event Refunded(bytes32 indexed quoteHash, address indexed to, address token, uint256 amount);
    event Cancelled(bytes32 indexed quoteHash);
    event Claimed(bytes32 indexed quoteHash, address indexed treasury, address token, uint256 amount);
    /// @notice A fill with a destination call: `executed` when the target took the tokens and its
    /// call succeeded; false when it reverted and the tokens went to the order's recipient instead.
    event CallExecuted(bytes32 indexed quoteHash, address indexed target, bool executed);

    error AlreadyDeposited(bytes32 quoteHash);
    error WrongDepositTarget();
    error WrongSourceChain();
    error WrongValue();
    error WrongDestinationChain();
    error AlreadyFilled(bytes32 quoteHash);
    error AlreadyRefunded(bytes32 quoteHash);
    error NotDeposited(bytes32 quoteHash);
    error BelowMinimum(uint256 amount, uint256 minAmountOut);
    error BadRecipient();
    error BadToken();
    error NotRefunder();
    error NotSettler();
    error TransferFailed();
    error RetentionOver(uint256 retainedUntil);
    error OrderCancelled(bytes32 quoteHash);
    error AlreadyClaimed(bytes32 quoteHash);
    error NotFilled(bytes32 quoteHash);
    error BadCallCommitment();
    error BadCallTarget();
    error InsufficientGas();
    error NotSelf();

    /// @notice A call to run on the destination with the delivered tokens (issue 39 §4). The order
    /// commits to it through its salt: `order.salt == keccak256(abi.encode(callSalt,
    /// keccak256(abi.encode(target, gasLimit, data))))`, so the quote hash covers it.
    struct DestinationCall {
        address target;
        uint256 gasLimit;
        bytes data;
    }

    /// @dev Gas the router spends around a destination call (the token transfer to the target and
    /// the proxy), on top of its gas limit: a fill sent with less reverts rather than falls back.
    uint256 private constant CALL_OVERHEAD = 100_000;

    /// @notice The operator key allowed to cancel (on the destination) and refund (on the source).
    /// The router cannot see the other chain: the refunder cancels a cross-chain order on its
    /// destination before refunding it, so no fill can land after the refund.
    address public immutable refunder;
    /// @notice The operator key allowed to claim delivered orders' deposits for the treasury.
    address public immutable settler;
    /// @notice Where claimed deposits go.
    address public immutable treasury;
    /// @notice Seconds after an order's `issuedAt` during which it may be deposited and filled;
    /// equal to the quote-engine's QUOTE_RETENTION_SECS, so the chain never takes an order the
    /// backend has forgotten.
    uint64 public immutable retention;
    /// @notice The contract that makes destination calls (deployed with the router): a target never
    /// sees the router itself as its caller.
    XchainCallProxy public immutable callProxy;

    /// @notice Ever deposited (stays true after a refund, so a refunded hash cannot be deposited again).
    mapping(bytes32 quoteHash => bool) public deposited;
    mapping(bytes32 quoteHash => bool) public filled;
    mapping(bytes32 quoteHash => bool) public refunded;
    /// @notice Cancelled on this (destination) chain: it can no longer be filled here.
    mapping(bytes32 quoteHash => bool) public cancelled;
    /// @notice Deposit sent to the treasury.
    mapping(bytes32 quoteHash => bool) public claimed;

    constructor(address refunder_, address settler_, address treasury_, uint64 retention_) {
        refunder = refunder_;
        settler = settler_;
        treasury = treasury_;
        retention = retention_;
        callProxy = new XchainCallProxy();
    }

    /// @notice The last second at which an order may be deposited or filled.
    function retainedUntil(XchainOrder.Order calldata order) public view returns (uint256) {
        return uint256(order.issuedAt) + retention;
    }

    /// @notice Deposit for an order from the caller's own funds.
    function deposit(XchainOrder.Order calldata order) external payable {
        _deposit(order, msg.sender);
    }

    /// @notice Deposit for an order from the caller's funds, naming `depositor` as the user it is
    /// for (the gasless executor names the signer). Funds always come from `msg.sender`.
    function depositFor(XchainOrder.Order calldata order, address depositor) external payable {
        _deposit(order, depositor);
    }

    /// @notice What the router takes for an order: `amountIn`, less the relay gas of a gasless
    /// order whose user pays it (the executor has already paid that part to the fee recipient).
    function depositAmount(XchainOrder.Order calldata order) public pure returns (uint256) {
        return order.gasless && !order.sponsorFees ? order.amountIn - order.sponsorGas : order.amountIn;
    }

    /// @notice Deliver an order on its destination chain: `amount` (at least `minAmountOut`) of
    /// `dstToken` and `gasDrop` of the native asset to the recipient, paid by the caller (the
    /// filler), once per quote hash. Native destination: `msg.value == amount + gasDrop`; ERC-20:
    /// `msg.value == gasDrop` and the router pulls `amount` from the caller to the recipient.
    function fill(XchainOrder.Order calldata order, uint256 amount) external payable {
        (bytes32 quoteHash, address recipient, address token) = _startFill(order, amount);
        if (token == address(0)) {
            if (msg.value != amount + order.gasDrop) revert WrongValue();
            _sendNative(recipient, amount + order.gasDrop);
        } else {
            if (msg.value != order.gasDrop) revert WrongValue();
            IERC20(token).safeTransferFrom(msg.sender, recipient, amount);
            if (order.gasDrop != 0) _sendNative(recipient, order.gasDrop);
        }
        emit Filled(quoteHash, msg.sender, recipient, token, amount, order.gasDrop);
    }

    /// @notice Deliver an order that carries a destination call: the same checks and payment as
    /// `fill`, and the call must be the one the order's salt commits to (`BadCallCommitment`). The
    /// tokens go to `call.target` and the target is called with `call.data` and exactly
    /// `call.gasLimit` gas, atomically, through `callProxy`; when that reverts, the tokens go to the
    /// order's recipient (the fallback) and the order is filled all the same. The gas drop always
    /// goes to the recipient. Reverts `InsufficientGas` when sent with too little gas to give the
    /// call its whole limit. Returns whether the call ran and, when not, the proxy's revert data
    /// (`CallReverted(bytes)` with the target's), so a simulation can tell why.
    function fillWithCall(XchainOrder.Order calldata order, uint256 amount, DestinationCall calldata call, bytes32 callSalt)
        external
        payable
        returns (bool executed, bytes memory reason)
    {
        bytes32 callHash = keccak256(abi.encode(call.target, call.gasLimit, call.data));
        if (order.salt != keccak256(abi.encode(callSalt, callHash))) revert BadCallCommitment();
        if (call.target == address(0) || call.target == address(this)) revert BadCallTarget();
        (bytes32 quoteHash, address recipient, address token) = _startFill(order, amount);
        if (msg.value != (token == address(0) ? amount : 0) + order.gasDrop) revert WrongValue();
        if (gasleft() < ((call.gasLimit + CALL_OVERHEAD) * 64) / 63) revert InsufficientGas();
        try this.deliverAndCall{value: token == address(0) ? amount : 0}(msg.sender, token, amount, call) {
            executed = true;
        } catch (bytes memory data) {
            if (data.length == 4 && bytes4(data) == InsufficientGas.selector) revert InsufficientGas();
            reason = data;
            if (token == address(0)) _sendNative(recipient, amount);
            else IERC20(token).safeTransferFrom(msg.sender, recipient, amount);
        }
        if (order.gasDrop != 0) _sendNative(recipient, order.gasDrop);
        emit Filled(quoteHash, msg.sender, executed ? call.target : recipient, token, amount, order.gasDrop);
        emit CallExecuted(quoteHash, call.target, executed);
    }

    /// @notice The router's own step of `fillWithCall`, called by itself so that a revert undoes
    /// the transfer and the call together: `amount` of `token` from `filler` to the target (native:
    /// the value sent), then the call through the proxy.
    function deliverAndCall(address filler, address token, uint256 amount, DestinationCall calldata call) external payable {
        if (msg.sender != address(this)) revert NotSelf();
        if (token != address(0)) IERC20(token).safeTransferFrom(filler, call.target, amount);
        callProxy.run{value: msg.value}(call.target, call.gasLimit, call.data);
    }

    /// @notice Close an unfilled order on its destination chain, so no fill can land after the
    /// refunder refunds it on the source; the refunder only. Cancelling a cancelled order succeeds
    /// without an event, so a retried operator transaction does not look failed.
    function cancel(XchainOrder.Order calldata order) external {
        if (msg.sender != refunder) revert NotRefunder();
        if (order.dstChainId != block.chainid) revert WrongDestinationChain();
        bytes32 quoteHash = XchainOrder.hash(order);
        if (filled[quoteHash]) revert AlreadyFilled(quoteHash);
        if (cancelled[quoteHash]) return;
        cancelled[quoteHash] = true;
        emit Cancelled(quoteHash);
    }

    /// @notice Return an undelivered order's deposit to its refund address, once; the refunder only.
    /// No wait: for a cross-chain order the refunder cancels it on its destination first (the
    /// router cannot see that chain); a same-chain order is refused here once filled.
    function refund(XchainOrder.Order calldata order) external {
        if (msg.sender != refunder) revert NotRefunder();
        _checkSource(order);
        bytes32 quoteHash = XchainOrder.hash(order);
        if (!deposited[quoteHash]) revert NotDeposited(quoteHash);
        if (refunded[quoteHash]) revert AlreadyRefunded(quoteHash);
        if (claimed[quoteHash]) revert AlreadyClaimed(quoteHash);
        if (_sameChain(order) && filled[quoteHash]) revert AlreadyFilled(quoteHash);
        if (!_isEvmAddress(order.refundAddress)) revert BadRecipient();
        address to = address(uint160(uint256(order.refundAddress)));
        refunded[quoteHash] = true;

        uint256 amount = depositAmount(order);
        address token = address(uint160(uint256(order.srcToken)));
        if (token == address(0)) _sendNative(to, amount);
        else IERC20(token).safeTransfer(to, amount);
        emit Refunded(quoteHash, to, token, amount);
    }

    /// @notice Send delivered orders' deposits to the treasury, each once; the settler only. A
    /// cross-chain order's delivery happened on another chain, which the settler checks; a
    /// same-chain order must be filled here. One bad order reverts the whole batch.
    function claim(XchainOrder.Order[] calldata orders) external {
        if (msg.sender != settler) revert NotSettler();
        // Every order is checked and marked before any token moves, so no transfer (a token's
        // hook, the treasury's receive) can act on an order of the batch still unmarked.
        bytes32[] memory hashes = new bytes32[](orders.length);
        for (uint256 i = 0; i < orders.length; i++) {
            XchainOrder.Order calldata order = orders[i];
            _checkSource(order);
            bytes32 quoteHash = XchainOrder.hash(order);
            if (!deposited[quoteHash]) revert NotDeposited(quoteHash);
            if (refunded[quoteHash]) revert AlreadyRefunded(quoteHash);
            if (claimed[quoteHash]) revert AlreadyClaimed(quoteHash);
            if (_sameChain(order) && !filled[quoteHash]) revert NotFilled(quoteHash);
            claimed[quoteHash] = true;
            hashes[i] = quoteHash;
        }
        for (uint256 i = 0; i < orders.length; i++) {
            uint256 amount = depositAmount(orders[i]);
            address token = address(uint160(uint256(orders[i].srcToken)));
            if (token == address(0)) _sendNative(treasury, amount);
            else IERC20(token).safeTransfer(treasury, amount);
            emit Claimed(hashes[i], treasury, token, amount);
        }
    }

    /// @dev The checks every fill makes; marks the order filled (before any external call).
    function _startFill(XchainOrder.Order calldata order, uint256 amount)
        private
        returns (bytes32 quoteHash, address recipient, address token)
    {
        if (order.dstChainId != block.chainid) revert WrongDestinationChain();
        quoteHash = XchainOrder.hash(order);
        if (filled[quoteHash]) revert AlreadyFilled(quoteHash);
        if (cancelled[quoteHash]) revert OrderCancelled(quoteHash);
        _checkRetention(order);
        if (amount < order.minAmountOut) revert BelowMinimum(amount, order.minAmountOut);
        if (!_isEvmAddress(order.recipient)) revert BadRecipient();
        if (!_isEvmAddress(order.dstToken)) revert BadToken();
        recipient = address(uint160(uint256(order.recipient)));
        token = address(uint160(uint256(order.dstToken)));
        // A same-chain order is whole on this router: it fills only what was deposited here and
        // never refunded, which is what lets `refund` rule out a fill for it.
        if (_sameChain(order)) {
            if (!deposited[quoteHash]) revert NotDeposited(quoteHash);
            if (refunded[quoteHash]) revert AlreadyRefunded(quoteHash);
        }
        filled[quoteHash] = true;
    }

    function _deposit(XchainOrder.Order calldata order, address depositor) private {
        _checkSource(order);
        bytes32 quoteHash = XchainOrder.hash(order);
        if (deposited[quoteHash]) revert AlreadyDeposited(quoteHash);
        _checkRetention(order);
        deposited[quoteHash] = true;

        uint256 amount = depositAmount(order);
        address token = address(uint160(uint256(order.srcToken)));
        if (token == address(0)) {
            if (msg.value != amount) revert WrongValue();
        } else {
            if (msg.value != 0) revert WrongValue();
            IERC20(token).safeTransferFrom(msg.sender, address(this), amount);
        }
        emit OrderOpened(quoteHash, order);
        emit Deposited(quoteHash, depositor, token, amount);
    }

    /// @dev An order quoted for another router or chain would be priced and watched elsewhere.
    function _checkSource(XchainOrder.Order calldata order) private view {
        if (order.depositTarget != bytes32(uint256(uint160(address(this))))) revert WrongDepositTarget();
        if (order.srcChainId != block.chainid) revert WrongSourceChain();
    }

    /// @dev Past retention the backend no longer keeps the order's quote: no deposit or fill may start it.
    function _checkRetention(XchainOrder.Order calldata order) private view {
        uint256 until = retainedUntil(order);
        if (block.timestamp > until) revert RetentionOver(until);
    }

    function _sameChain(XchainOrder.Order calldata order) private view returns (bool) {
        return order.srcChainId == block.chainid && order.dstChainId == block.chainid
            && order.depositTarget == bytes32(uint256(uint160(address(this))));
    }

    /// @dev An EVM address is left-padded to 32 bytes; anything in the high 12 bytes (a Solana key,
    /// a typo) would otherwise be cut silently to some other address.
    function _isEvmAddress(bytes32 value) private pure returns (bool) {
        return uint256(value) >> 160 == 0;
    }

    function _sendNative(address to, uint256 amount) private {
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert TransferFailed();
    }
}
